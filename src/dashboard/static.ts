// Serves the built frontend (a Vite dist folder) read-only: GET/HEAD of files under root, `/` and
// unknown paths without an extension answer index.html (the single-page app's routes).
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message, code }));
}

export { status as writeStatus };

export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") return status(res, 405, "MethodNotAllowed", `${req.method} is not allowed`);
  let path: string;
  try {
    path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
  } catch {
    return status(res, 400, "BadRequest", "malformed path");
  }
  const rel = normalize(path).replace(/^[/\\]+/, "");
  if (rel.split(sep).includes("..") || path.includes("\0")) return status(res, 400, "BadRequest", "invalid path");
  let file = join(root, rel);
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile()) {
    if (extname(rel) !== "") return status(res, 404, "NotFound", `${path} not found`);
    file = join(root, "index.html");
  }
  const body = await readFile(file).catch(() => undefined);
  if (!body) return status(res, 404, "NotFound", "the frontend is not built (run: npm run build:dashboard)");
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "cache-control": file.endsWith("index.html") ? "no-cache" : "max-age=3600",
    "x-content-type-options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
