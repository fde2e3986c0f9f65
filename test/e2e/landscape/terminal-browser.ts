// Web terminals on the landscape as a person uses them (docs/terminals.md#the-local-landscape): in
// headless chromium (browser.ts) log in with a bearer token, see the project and its shoot, open a
// pane, see the prompt, run `kubectl get nodes` and find the workers on screen, resize the window and
// read the new size from `stty size`, close the pane; then nothing of the terminal is left on any
// cluster or its worker (terminal.ts) and the session's recording holds what the screen showed.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Layout } from "../../../src/landscape/layout.ts";
import { OPERATOR_USER, operatorTokenPath } from "../../../src/landscape/operator-terminals.ts";
import { eventually } from "../../support/http.ts";
import { LandscapeBrowser, type DashboardPage, type PaneButton } from "./browser.ts";
import { DashboardApi, assertTerminalGone, traceOf, type TerminalTrace } from "./terminal.ts";

const PROJECT = "local", NAMESPACE = "garden-local", SHOOT = "local";

export interface Journey {
  /** The user's bearer token, and the name the dashboard shows for it. */
  token: string;
  user: string;
  button: PaneButton;
  /** The shoot whose row has the button; none for the operator's project-level garden terminal. */
  shoot?: string;
  /** Typed after the prompt; `expect` must then appear on screen. */
  command: string;
  expect: RegExp;
  /** The text the recording must hold (from the command's output). */
  recorded: string;
  /** Writes a PNG of the page after the command's output (the README's screenshot). */
  screenshot?: string;
}

export interface JourneyResult {
  /** Click on the pane's button -> a prompt on screen, in ms. */
  clickToPrompt: number;
  trace: TerminalTrace;
}

async function inPane(layout: Layout, d: DashboardPage, j: Journey): Promise<{ clickToPrompt: number; trace: TerminalTrace; recording: string; size: string }> {
  assert.equal(await d.login(j.token), j.user, "the header shows who logged in");
  await d.openProject(PROJECT, NAMESPACE);
  await d.shoot(SHOOT).waitFor();
  const clicked = performance.now();
  const pane = await d.openPane(j.button, j.shoot);
  await pane.connected();
  await pane.prompt();
  const clickToPrompt = performance.now() - clicked;
  const info = await pane.info();
  assert.ok(info.terminal?.name, "the pane names its Terminal");
  assert.ok(info.recording?.id, "the session is recorded");
  assert.match((await pane.locator.locator("[data-testid=pane-recorded]").textContent()) ?? "", /^Recorded/);
  const trace = await traceOf(layout, info.terminal);

  await pane.typeLine(j.command);
  await pane.waitFor(j.expect);
  await pane.prompt();
  if (j.screenshot) await d.page.screenshot({ path: j.screenshot });

  // A smaller window: the fit addon gives the pane fewer columns and rows, and the shell learns them.
  await d.page.setViewportSize({ width: 900, height: 560 });
  // (the pane's width may follow in steps: wait until it holds still for half a second)
  let last = "", since = 0;
  const size = await eventually("the pane resized and steady", async () => {
    const now = await pane.info();
    const key = `${now.cols}x${now.rows}`;
    if (key !== last) [last, since] = [key, Date.now()];
    return now.cols < info.cols && now.rows < info.rows && Date.now() - since >= 500 ? now : undefined;
  }, 15_000, 100);
  await pane.typeLine("stty size");
  await pane.waitFor(new RegExp(`^${size.rows} ${size.cols}$`, "m"));
  await pane.close();
  return { clickToPrompt, trace, recording: info.recording.id, size: `${size.cols}x${size.rows}` };
}

/**
 * One terminal journey in the browser, then the checks outside it: every object gone (Terminal first),
 * and the recording, read through the dashboard as the same user, holds the command's output and the
 * resize.
 */
export async function browserTerminalJourney(layout: Layout, prefix: string, browser: LandscapeBrowser, name: string, j: Journey): Promise<JourneyResult> {
  const r = await browser.session(name, (d) => inPane(layout, d, j));
  await assertTerminalGone(layout, prefix, r.trace);
  const api = new DashboardApi(layout, j.token);
  const listed = await api.call<{ id: string }[]>("listRecordings", { coordinate: { namespace: r.trace.terminal.namespace, name: r.trace.terminal.name } });
  assert.ok(listed.some((x) => x.id === r.recording), `listRecordings names ${r.recording}: ${JSON.stringify(listed.map((x) => x.id))}`);
  const cast = await api.recording(r.trace.terminal.namespace, r.recording);
  const events = cast.split("\n").slice(1).filter(Boolean).map((l) => JSON.parse(l) as [number, string, string]);
  const output = events.filter((e) => e[1] === "o").map((e) => e[2]).join("");
  assert.ok(output.includes(j.recorded), `the recording holds ${JSON.stringify(j.recorded)}`);
  assert.ok(events.some((e) => e[1] === "r" && e[2] === r.size), `the recording holds the resize to ${r.size}`);
  return { clickToPrompt: r.clickToPrompt, trace: r.trace };
}

/** The member's login token and the garden CA that signed the dashboard's certificate. */
export function memberLogin(layout: Layout): { token: string; url: string; caPem: string } {
  return {
    token: readFileSync(join(layout.dir, "garden-member.token"), "utf8").trim(),
    url: readFileSync(join(layout.dir, "dashboard.url"), "utf8").trim(),
    caPem: readFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "utf8"),
  };
}

/** The operator's login as `up` prints it: the token in garden-operator.token, user local-operator (bound to Gardener's administrators). */
export function operatorLogin(layout: Layout): { token: string; user: string } {
  const path = operatorTokenPath(layout);
  assert.equal(statSync(path).mode & 0o777, 0o600, "the operator's token file is private");
  return { token: readFileSync(path, "utf8").trim(), user: OPERATOR_USER };
}
