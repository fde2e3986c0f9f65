// Run by sweep.test.ts as a separate process that builds host objects, says "built", and is then killed
// with SIGKILL: a controller that crashed with everything still running.
// usage: node --import tsx crash-child.ts <stateDir> <prefix>
import { LinuxHost } from "../../../src/host/index.ts";

const [stateDir, prefix] = process.argv.slice(2);
if (!stateDir || !prefix) throw new Error("usage: crash-child.ts <stateDir> <prefix>");
const host = new LinuxHost({ stateDir, prefix });
const pub = host.names.netns("pub");
const br = host.names.link("pub");
await host.ensureNetns(pub, { owner: "crashed" });
await host.ensureBridge({ name: br, netns: pub, owner: "crashed" });
await host.ensureBridge({ name: host.names.link("hostbr"), owner: "crashed" });
await host.applyTable(undefined, { family: "inet", name: host.names.table("probe"), chains: [] }, { owner: "crashed" });
await host.startProcess({ name: "listener", netns: pub, command: "sleep", args: ["600"], owner: "crashed" });
for (const m of ["m1", "m2"]) {
  await host.startMachine({
    name: m,
    owner: "crashed",
    networks: [{ bridge: br, bridgeNetns: pub, address: m === "m1" ? "192.168.250.21/24" : "192.168.250.22/24" }],
    sshd: { hostKeyTypes: ["ed25519"] },
    nftTables: [{ family: "inet", name: "bastion", chains: [] }],
  });
}
process.stdout.write("built\n");
setInterval(() => undefined, 60_000);
