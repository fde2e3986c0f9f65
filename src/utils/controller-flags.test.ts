// The controller components' one flag parser: both components apply the same checks to the shared
// flags, add their own, and answer --help with the defaults, duration syntax, exit codes and examples.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Option } from "commander";
import { parseControllerManagerFlags } from "../controllermanager/options.ts";
import { parseSchedulerFlags } from "../scheduler/options.ts";
import { type ControllerCommand, parseControllerFlags } from "./controller-flags.ts";
import type { FlagsResult } from "./flags.ts";
import { fileURLToPath } from "node:url";

/** Any readable file: the parser checks only that --kubeconfig can be read. */
const KUBECONFIG = fileURLToPath(import.meta.url);

const parsers: [string, (argv: string[]) => FlagsResult<unknown>][] = [
  ["kube-scheduler", parseSchedulerFlags],
  ["gardener-controller-manager", parseControllerManagerFlags],
];

const failure = (stderr: string) => ({ kind: "exit", code: 2, stdout: "", stderr });

describe("controller flags", () => {
  for (const [name, parse] of parsers) {
    test(`${name}: the shared checks, each one line and exit 2`, () => {
      assert.deepEqual(parse([]), failure("error: --kubeconfig is required\n"));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "--leader-elect-lease-duration", "10s"]), failure("error: --leader-elect-lease-duration must be greater than --leader-elect-renew-deadline\n"));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "--leader-elect-retry-period", "10s"]), failure("error: --leader-elect-renew-deadline must be greater than --leader-elect-retry-period\n"));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "--leader-elect-retry-period", "0s"]), failure('error: --leader-elect-retry-period: invalid duration "0s": must be positive\n'));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "--leader-elect=maybe"]), failure('error: invalid value "maybe" for --leader-elect: must be true or false\n'));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "--log-level", "loud"]), failure('error: invalid value "loud" for --log-level: must be one of trace, debug, info, warn, error, fatal, silent\n'));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "--nope"]), failure("error: unknown option '--nope'\n"));
      assert.deepEqual(parse(["--kubeconfig", KUBECONFIG, "extra"]), failure("error: too many arguments. Expected 0 arguments but got 1.\n"));
      assert.deepEqual(parse(["--kubeconfig"]), failure("error: option '--kubeconfig <file>' argument missing\n"));
      assert.deepEqual(parse(["--kubeconfig", "/nonexistent/kubeconfig"]), failure('error: invalid value "/nonexistent/kubeconfig" for --kubeconfig: no such file\n'));
      assert.deepEqual(parse(["--kubeconfig", "/"]), failure('error: invalid value "/" for --kubeconfig: not a file\n'));
    });

    test(`${name}: --help names every flag's default, the duration syntax, the exit codes and examples`, () => {
      const help = parse(["--help"]);
      assert.ok(help.kind === "exit" && help.code === 0 && help.stderr === "");
      assert.match(help.stdout, new RegExp(`^Usage: ${name} \\[options\\]`));
      assert.match(help.stdout, /--leader-elect-lease-duration <duration> .*\(default: "15s"\)/);
      assert.match(help.stdout, /Durations are Go durations: 300ms, 10s, 1h30m\./);
      assert.match(help.stdout, /Exit codes: 0 after a signal or --help, 1 when it cannot start, 2 for a bad flag/);
      assert.match(help.stdout, new RegExp(`Examples:\\n  ${name} --kubeconfig `));
    });
  }

  test("a component's own flags come between the shared ones and --log-level; its build sees both", () => {
    const c: ControllerCommand<{ kubeconfig: string; widgets: number }> = {
      name: "widgetd",
      description: "Makes widgets.",
      kubeconfigHelp: "Kubeconfig.",
      metricsBindAddress: "127.0.0.1:1",
      lease: { namespace: "ns", name: "widgetd", help: "Lead." },
      options: [new Option("--widgets <n>", "How many.").default("3")],
      examples: ["widgetd --kubeconfig k"],
      build: (o, flags) => ({ kubeconfig: flags.kubeconfig, widgets: Number(o.widgets) }),
    };
    assert.deepEqual(parseControllerFlags(c, ["--kubeconfig", KUBECONFIG, "--widgets", "5"]), { kind: "options", options: { kubeconfig: KUBECONFIG, widgets: 5 } });
    const help = parseControllerFlags(c, ["-h"]);
    assert.ok(help.kind === "exit");
    assert.ok(help.stdout.indexOf("--leader-elect-resource-name") < help.stdout.indexOf("--widgets") && help.stdout.indexOf("--widgets") < help.stdout.indexOf("--log-level"));
  });
});
