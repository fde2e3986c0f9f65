// The browser's milestones of one pane (bench/terminal --trace): the dashboard calls the page makes
// (`create` sent and answered, `fetch` answered; `create`'s answer names the Terminal) and the attach
// WebSocket (opened, the dashboard's `connected`, the first output), as Playwright reports them.
import type { Page, Request, Response, WebSocket } from "playwright-core";
import type { Milestone } from "./trace.ts";

function methodOf(req: Request): string | undefined {
  if (!req.url().endsWith("/api/terminals") || req.method() !== "POST") return undefined;
  try {
    return (req.postDataJSON() as { method?: string } | null)?.method;
  } catch {
    return undefined;
  }
}

/** Reports the page's milestones until stop(); `named` once `create` answered with the Terminal's name. */
export function watchPage(page: Page, mark: (k: Milestone, at: number) => void, named: (name: string) => void): { name(): string | undefined; stop(): void } {
  let name: string | undefined;
  const onRequest = (req: Request): void => {
    if (methodOf(req) === "create") mark("create sent", Date.now());
  };
  const onResponse = (res: Response): void => {
    const at = Date.now();
    const method = methodOf(res.request());
    if (method === "fetch") mark("fetch answered", at);
    if (method !== "create") return;
    void res.json().then((body: { metadata?: { name?: string } }) => {
      if (name || !body.metadata?.name) return;
      name = body.metadata.name;
      named(name);
      mark("create answered", at);
    }, () => undefined);
  };
  const onSocket = (ws: WebSocket): void => {
    if (!ws.url().includes("/api/terminals/attach/")) return;
    mark("browser: WebSocket opened", Date.now());
    ws.on("framereceived", ({ payload }) => {
      const at = Date.now();
      if (typeof payload === "string") {
        if (payload.includes("\"connected\"")) mark("browser: attached (connected)", at);
      } else if (payload.length > 0) mark("browser: first output", at);
    });
  };
  page.on("request", onRequest);
  page.on("response", onResponse);
  page.on("websocket", onSocket);
  return {
    name: () => name,
    stop() {
      page.off("request", onRequest);
      page.off("response", onResponse);
      page.off("websocket", onSocket);
    },
  };
}
