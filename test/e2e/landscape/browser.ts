// A browser for the landscape's dashboard (docs/dashboard.md#test-hooks): Debian's headless chromium
// through playwright-core, trusting exactly the dashboard's serving key (checked against the garden CA
// first), one traced browser context per journey (the trace is kept on failure and its path printed),
// and helpers that act as a person would: log in with a token, open a project, open a terminal pane,
// type a line, read the xterm buffer, wait for text.
import { existsSync, mkdirSync } from "node:fs";
import { X509Certificate, createHash } from "node:crypto";
import { connect } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const chromiumSkip: string | false = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install Debian's chromium (npm run setup as root)`;

/** Where failing journeys keep their traces (`npx playwright-core show-trace <file>` opens one). */
export const traceDir = (): string => process.env.DASHBOARD_TRACE_DIR ?? join(tmpdir(), "dashboard-traces");

/** The pane buttons of the shoots page (docs/dashboard.md#the-frontend). */
export type PaneButton = "open-shoot-terminal" | "open-member-garden-terminal" | "open-cp-terminal" | "open-garden-terminal";

/** sha256 of the server's SubjectPublicKeyInfo, base64, after verifying its certificate against `caPem`. */
async function servingKeyPin(url: string, caPem: string): Promise<string> {
  const u = new URL(url);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port || 443), ca: caPem, servername: /^[\d.]+$/.test(u.hostname) ? undefined : u.hostname }, () => {
      const cert = s.getPeerCertificate();
      s.end();
      resolve(cert.raw);
    });
    s.setTimeout(10_000, () => s.destroy(new Error(`TLS handshake with ${u.host} timed out`)));
    s.once("error", reject);
  });
  return createHash("sha256").update(new X509Certificate(raw).publicKey.export({ type: "spki", format: "der" })).digest("base64");
}

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs: number, detail?: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `; ${await detail()}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class LandscapeBrowser {
  private constructor(readonly browser: Browser, readonly url: string) {}

  /** Launches chromium trusting the dashboard at `url`, whose certificate `caPem` (the garden CA) signed. */
  static async launch(url: string, caPem: string): Promise<LandscapeBrowser> {
    const pin = await servingKeyPin(url, caPem);
    const browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", `--ignore-certificate-errors-spki-list=${pin}`],
    });
    return new LandscapeBrowser(browser, url);
  }

  /**
   * Runs `journey` in a fresh context (its own sessionStorage and localStorage) with Playwright tracing;
   * a failure saves the trace under traceDir(), prints its path and names it in the error.
   */
  async session<T>(name: string, journey: (d: DashboardPage) => Promise<T>, viewport = { width: 1280, height: 800 }): Promise<T> {
    const context = await this.browser.newContext({ viewport });
    await context.tracing.start({ title: name, screenshots: true, snapshots: true });
    try {
      const result = await journey(new DashboardPage(await context.newPage(), this.url));
      await context.tracing.stop();
      return result;
    } catch (err) {
      mkdirSync(traceDir(), { recursive: true });
      const path = join(traceDir(), `${name.replace(/[^A-Za-z0-9.-]+/g, "_")}-${new Date().toISOString().replace(/[:.]/g, "")}.zip`);
      await context.tracing.stop({ path }).catch((e: Error) => process.stderr.write(`saving the trace failed: ${e.message}\n`));
      process.stderr.write(`browser journey "${name}" failed; its trace: ${path} (npx playwright-core show-trace ${path})\n`);
      if (err instanceof Error) err.message += ` (trace: ${path})`;
      throw err;
    } finally {
      await context.close();
    }
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}

export class DashboardPage {
  constructor(readonly page: Page, readonly url: string) {}

  /** Logs in on the login page with a bearer token; answers the user name the header shows. */
  async login(token: string): Promise<string> {
    await this.page.goto(this.url);
    await this.page.fill("[data-testid=login-token]", token);
    await this.page.click("[data-testid=login-submit]");
    const who = this.page.locator("[data-testid=whoami]");
    await who.waitFor();
    // the user name is the element's first text; operators get a badge after it
    return who.evaluate((e) => e.firstChild?.textContent ?? "");
  }

  /** On the projects page: clicks the project when listed, else opens it by its namespace; waits for its shoots. */
  async openProject(project: string, namespace: string): Promise<void> {
    await this.page.goto(`${this.url}#/projects`);
    const listed = this.page.locator(`[data-testid=project][data-name="${project}"]`);
    const notListed = this.page.locator("[data-testid=projects-not-listed]");
    await listed.or(notListed).first().waitFor();
    if (await listed.count()) {
      await listed.locator("a").first().click();
    } else {
      await this.page.fill("[data-testid=project-namespace]", namespace);
      await this.page.click("[data-testid=open-project]");
    }
    await this.page.locator(`[data-testid=shoots][data-namespace="${namespace}"]`).waitFor();
  }

  shoot(name: string): Locator {
    return this.page.locator(`[data-testid=shoot][data-name="${name}"]`);
  }

  /** Clicks a pane button (on the shoot's row, or the page's for the operator's garden terminal); answers the new pane. */
  async openPane(button: PaneButton, shoot?: string): Promise<TerminalPane> {
    const panes = this.page.locator("[data-testid=terminal-pane]");
    const before = new Set(await panes.evaluateAll((els) => els.map((e) => e.getAttribute("data-identifier") ?? "")));
    await (shoot ? this.shoot(shoot).locator(`[data-testid=${button}]`) : this.page.locator(`[data-testid=${button}]`)).click();
    const id = await until(`a new terminal pane after ${button}`, async () => {
      const ids = await panes.evaluateAll((els) => els.map((e) => e.getAttribute("data-identifier") ?? ""));
      return ids.find((i) => i && !before.has(i));
    }, 10_000);
    return new TerminalPane(this.page, id);
  }
}

interface PaneHook {
  term: { cols: number; rows: number; buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } };
  session: { terminal?: { name: string; namespace: string }; recording?: { id: string; input: boolean } };
}

export class TerminalPane {
  readonly locator: Locator;
  constructor(readonly page: Page, readonly identifier: string) {
    this.locator = page.locator(`[data-testid=terminal-pane][data-identifier="${identifier}"]`);
  }

  state(): Promise<string | null> {
    return this.locator.getAttribute("data-state");
  }

  /** Waits for `Connected`; a pane that shows an error or turns `Disconnected` fails at once with its message. */
  async connected(timeoutMs = 60_000): Promise<void> {
    await until(`pane ${this.identifier} Connected`, async () => {
      const s = await this.state();
      if (s === "Disconnected") throw new Error(`pane ${this.identifier} Disconnected: ${await this.locator.locator("[data-testid=pane-error]").textContent().catch(() => "")}`);
      return s === "Connected";
    }, timeoutMs, async () => `state ${await this.state()}, message ${JSON.stringify(await this.locator.locator("[data-testid=pane-error]").textContent({ timeout: 100 }).catch(() => ""))}`);
  }

  /** What the pane's session knows: its Terminal and its recording. */
  info(): Promise<{ terminal?: { name: string; namespace: string }; recording?: { id: string; input: boolean }; cols: number; rows: number }> {
    return this.page.evaluate((id) => {
      const p = (globalThis as unknown as { dashboardPanes: Record<string, PaneHook> }).dashboardPanes[id]!;
      return { terminal: p.session.terminal, recording: p.session.recording, cols: p.term.cols, rows: p.term.rows };
    }, this.identifier);
  }

  /** The xterm buffer's text, line by line (trailing blanks trimmed). */
  screen(): Promise<string> {
    return this.page.evaluate((id) => {
      const b = (globalThis as unknown as { dashboardPanes: Record<string, PaneHook> }).dashboardPanes[id]?.term.buffer.active;
      if (!b) return "";
      const lines: string[] = [];
      for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? "");
      return lines.join("\n");
    }, this.identifier);
  }

  /** Waits until the buffer matches; answers the buffer then (the timeout's error shows its end). */
  async waitFor(re: RegExp, timeoutMs = 30_000): Promise<string> {
    return until(`${re} in pane ${this.identifier}`, async () => {
      const s = await this.screen();
      return re.test(s) ? s : undefined;
    }, timeoutMs, async () => `the screen ends with ${JSON.stringify((await this.screen()).trimEnd().slice(-1500))}`);
  }

  /** Waits for a shell prompt: the screen's last line that is not blank ends in `$`, `#` or `>`; answers that line. */
  async prompt(timeoutMs = 30_000): Promise<string> {
    return until(`a prompt in pane ${this.identifier}`, async () => {
      const last = (await this.screen()).trimEnd().split("\n").at(-1) ?? "";
      return /[$#>]$/.test(last) ? last : undefined;
    }, timeoutMs, async () => `the screen ends with ${JSON.stringify((await this.screen()).trimEnd().slice(-1500))}`);
  }

  /** Types a line into the pane's terminal, as keys, and Enter. */
  async typeLine(line: string): Promise<void> {
    await this.locator.locator("[data-testid=pane-terminal] .xterm-helper-textarea").focus();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press("Enter");
  }

  /** Closes the pane with its ✕ and waits until it is gone from the page. */
  async close(): Promise<void> {
    await this.locator.locator("[data-testid=pane-close]").click();
    await this.locator.waitFor({ state: "detached" });
  }
}
