// validateOptions (docs/gardenctl-ssh.md#validation): valid flags become SSHOptions; invalid ones are all
// reported at once, one problem per flag, in the documented order.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { Logger } from "./log.ts";
import { OptionsError, type RawFlags, validateOptions } from "./options.ts";

const flags = (over: Partial<RawFlags> = {}): RawFlags => ({
  interactive: true,
  cidr: [],
  keyType: "ed25519",
  keyTypeSet: false,
  waitTimeout: 60_000,
  keepBastion: false,
  skipAvailabilityCheck: false,
  keepalive: true,
  keepaliveInterval: 60_000,
  bastionPort: "22",
  bastionUserKnownHostsFile: [],
  nodeUserKnownHostsFile: [],
  user: "gardener",
  confirmAccessRestriction: false,
  controlPlane: false,
  v: 0,
  ...over,
});
const logger = (): Logger => new Logger(new PassThrough(), 0);
const problems = (raw: RawFlags, positional: string[] = ["node-1"], command: string[] = []): string[] => {
  try {
    validateOptions(raw, positional, command, { GCTL_SHELL: "bash" }, false, logger());
  } catch (err) {
    assert.ok(err instanceof OptionsError, String(err));
    assert.equal(err.exitCode, 1);
    return err.problems;
  }
  return [];
};

describe("validateOptions", () => {
  test("valid flags: defaults resolved, no problems", () => {
    const o = validateOptions(flags(), ["node-1"], [], {}, true, logger());
    assert.equal(o.shell, "bash");
    assert.equal(o.nodeName, "node-1");
    assert.equal(o.bastionStrictHostKeyChecking, "ask");
    assert.equal(validateOptions(flags({ nodeStrictHostKeyChecking: "off" }), [], [], {}, false, logger()).nodeStrictHostKeyChecking, "no");
    assert.equal(validateOptions(flags(), [], [], {}, false, logger()).interactive, false, "no node name: non-interactive");
  });

  test("every invalid flag is reported, in the documented order", () => {
    const raw = flags({ output: "xml", shell: "tcsh", waitTimeout: 0, keepaliveInterval: 1000, user: "Root", bastionPort: "0", bastionName: "Bad_Name", bastionHost: "0.0.0.0", bastionStrictHostKeyChecking: "x", nodeStrictHostKeyChecking: "y", keyType: "dsa", privateKeyFile: "/k" });
    assert.deepEqual(problems(raw, ["a", "224.0.0.1"]), [
      "accepts at most 1 arg(s), received 2",
      "--output must be either 'yaml' or 'json'",
      "shell must be one of [bash zsh fish powershell]",
      "the maximum wait duration must be non-zero",
      "--keepalive-interval must be between 10s and 30m0s",
      "set --interactive=false when using the output flag",
      "user must start with a lowercase letter or underscore, followed by lowercase letters, digits, underscores, or hyphens",
      "bastion port must be a valid port number between 1 and 65535",
      "bastion name is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'invalid bastion-host: unspecified addresses are not allowed: "0.0.0.0"',
      `invalid value "x" for StrictHostKeyChecking. Valid options are 'yes', 'ask', 'accept-new', 'no', or 'off'`,
      `invalid value "y" for StrictHostKeyChecking. Valid options are 'yes', 'ask', 'accept-new', 'no', or 'off'`,
      "--key-type must be either 'ed25519' or 'rsa'",
      "set --public-key-file when using --private-key-file",
    ]);
  });

  test("mode combinations: both keepalive rules, and all three command rules", () => {
    assert.deepEqual(problems(flags({ keepalive: false })), ["set --interactive=false when disabling keepalive", "set --keep-bastion when disabling keepalive"]);
    assert.deepEqual(problems(flags({ interactive: false, output: "json" }), [], ["ls"]), [
      "a node name is required when a command is given",
      "a command cannot be combined with --interactive=false",
      "a command cannot be combined with --output",
    ]);
  });

  test("one problem per flag: an empty user is only 'empty'; the node name is checked", () => {
    assert.deepEqual(problems(flags({ user: "" })), ["user must not be empty"]);
    assert.deepEqual(problems(flags({ user: "a".repeat(33) })), ["user must not exceed 32 characters"]);
    assert.deepEqual(problems(flags(), ["224.0.0.1"]), ['invalid node name: multicast addresses are not allowed: "224.0.0.1"']);
    assert.deepEqual(problems(flags({ shell: "" })), ["shell is required"]);
  });
});
