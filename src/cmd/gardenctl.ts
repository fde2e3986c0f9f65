// gardenctl: the composition root. Runs the program on the process arguments and exits with its
// code (docs/gardenctl-ssh.md#output-and-exit-codes).
import { main } from "../cli/gardenctl.ts";

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  tty: Boolean(process.stdin.isTTY && process.stderr.isTTY),
});
process.exitCode = code;
// Pending handles (sockets kept alive by the HTTP agent) must not delay the exit.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
