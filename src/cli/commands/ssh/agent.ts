// The one ssh-agent question gardenctl asks (docs/gardenctl-ssh.md#validation): does the agent hold at least one key?
// SSH2_AGENTC_REQUEST_IDENTITIES (11) answered by SSH2_AGENT_IDENTITIES_ANSWER (12) + count.
import { connect } from "node:net";
import { CLIError } from "./errors.ts";

export function agentKeyCount(socketPath: string, timeoutMs = 5000): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = connect(socketPath);
    let buf = Buffer.alloc(0);
    const fail = (why: string): void => {
      sock.destroy();
      reject(new CLIError(`failed to check SSH agent status: ${why}`));
    };
    const t = setTimeout(() => fail("timeout talking to the SSH agent"), timeoutMs);
    sock.on("error", () => {
      clearTimeout(t);
      fail(`could not open SSH agent socket ${JSON.stringify(socketPath)}`);
    });
    sock.on("connect", () => sock.write(Buffer.from([0, 0, 0, 1, 11])));
    sock.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 9) return;
      clearTimeout(t);
      sock.destroy();
      if (buf[4] !== 12) return reject(new CLIError("failed to check SSH agent status: unexpected agent answer"));
      resolve(buf.readUInt32BE(5));
    });
  });
}

/** A public key without a private key needs an agent holding at least one key. */
export async function requireAgentKey(env: NodeJS.ProcessEnv): Promise<void> {
  const msg = "a public key was provided, but no private key was found loaded into an SSH agent; this prevents gardenctl from validating the created bastion instance";
  const sock = env.SSH_AUTH_SOCK;
  if (!sock) throw new CLIError(msg);
  if ((await agentKeyCount(sock)) === 0) throw new CLIError(msg);
}
