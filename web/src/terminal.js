// The browser side of a terminal session: xterm.js on one end, the dashboard's WebSocket
// (/api/terminal/attach) on the other. Binary messages carry keystrokes and output; text messages are
// JSON: {"resize":{cols,rows}} from here, {"connected":...} and {"status":Status} from the server.
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";

const TOKEN_PREFIX = "base64url.bearer.authorization.k8s.io.";
const TERMINAL_PROTOCOL = "terminal.dashboard.gardener.cloud";

function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function openTerminal(element, { token, namespace, pod, container, mode }, onState) {
  const term = new Terminal({ cursorBlink: true, convertEol: false, scrollback: 5000 });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(element);
  fit.fit();
  const q = new URLSearchParams({ namespace, pod, mode: mode || "attach" });
  if (container) q.set("container", container);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}/api/terminal/attach?${q}`, [TERMINAL_PROTOCOL, TOKEN_PREFIX + base64url(token)]);
  ws.binaryType = "arraybuffer";
  const encoder = new TextEncoder();
  const sendResize = () => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ resize: { cols: term.cols, rows: term.rows } }));
  };
  ws.onopen = () => onState({ state: "connecting" });
  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") {
      term.write(new Uint8Array(ev.data));
      return;
    }
    const msg = JSON.parse(ev.data);
    if (msg.connected) {
      onState({ state: "connected" });
      sendResize();
      term.focus();
    } else if (msg.status) {
      onState({ state: "status", status: msg.status });
    }
  };
  ws.onclose = (ev) => onState({ state: "closed", code: ev.code, reason: ev.reason });
  term.onData((d) => ws.readyState === WebSocket.OPEN && ws.send(encoder.encode(d)));
  term.onResize(sendResize);
  const onWindowResize = () => fit.fit();
  window.addEventListener("resize", onWindowResize);
  return {
    term,
    fit: () => fit.fit(),
    resize: (cols, rows) => term.resize(cols, rows),
    close() {
      window.removeEventListener("resize", onWindowResize);
      ws.close(1000);
      term.dispose();
    },
  };
}
