// The dashboard's frontend (Vue 3 + xterm.js), built into web/dist, which src/dashboard/ serves.
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  plugins: [vue()],
  logLevel: "warn",
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1024 },
});
