import { createApp } from "vue";
import "@xterm/xterm/css/xterm.css";
import App from "./App.vue";

createApp(App).mount("#app");
