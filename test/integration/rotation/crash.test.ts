// A gardenlet that stops between starting a rotation (the status write with `lastInitiationTime`) and
// consuming its request (removing the operation annotation) must not rotate twice
// (docs/maintenance-and-rotation.md, "Starting is one idempotent step"). The crash is a transport
// that fails the request's removal and every call after it; a new gardenlet then takes over.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { rotationInProgress, sshKeypairRotation } from "../../../src/api/gardencore/rotation.ts";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import type { Transport, TransportRequest } from "../../../src/client/transport.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, type Machine, PROJECT_NS, createShoot, startLandscape } from "./landscape.ts";

const DAY0 = Date.parse("2026-03-10T20:00:00Z");
const KEY = { namespace: PROJECT_NS, name: "s" };
const OP = "gardener.cloud/operation";
const SHOOT_PATH = `/apis/core.gardener.cloud/v1beta1/namespaces/${PROJECT_NS}/shoots/s`;

/** A transport that "dies" at the first write removing the Shoot's operation annotation: it and every later call fail. */
function dyingAtConsume(): { wrap: (t: Transport) => Transport; died: Promise<void> } {
  let dead = false;
  let die!: () => void;
  const died = new Promise<void>((resolve) => (die = resolve));
  const killed = (): Error => new Error("gardenlet killed");
  const consumes = (req: TransportRequest): boolean => {
    const annotations = (req.body as { metadata?: { annotations?: Record<string, unknown> } } | undefined)?.metadata?.annotations;
    return req.method === "PATCH" && req.path === SHOOT_PATH && annotations !== undefined && OP in annotations;
  };
  const wrap = (t: Transport): Transport => ({
    server: t.server,
    request<T>(req: TransportRequest): Promise<T> {
      if (!dead && consumes(req)) {
        dead = true;
        die();
      }
      return dead ? Promise.reject(killed()) : t.request<T>(req);
    },
    stream(req): Promise<IncomingMessage> {
      return dead ? Promise.reject(killed()) : t.stream(req);
    },
    close: () => t.close(),
  });
  return { wrap, died };
}

describe("a gardenlet killed between starting a rotation and consuming its request", { timeout: 120_000 }, () => {
  let ls: Landscape;
  let machines: Machine[];
  const crash = dyingAtConsume();

  const getShoot = (): Promise<Shoot> => ls.garden.get(Shoots, KEY);
  const pub = async (name: string): Promise<string | undefined> => {
    const s = await unlessNotFound(ls.garden.get(Secrets, { namespace: PROJECT_NS, name }));
    return s ? Buffer.from(s.data?.["id_rsa.pub"] ?? "", "base64").toString() : undefined;
  };
  /**
   * Waits until a rotation other than `previous` (a lastInitiationTime) was initiated, none is requested
   * or in progress, and every node holds the current then the old key.
   */
  const settled = (previous?: string): Promise<Shoot> =>
    eventually("rotation settled", async () => {
      const s = await getShoot();
      if (rotationInProgress(s) || s.metadata.annotations?.[OP] !== undefined || sshKeypairRotation(s)?.lastInitiationTime === previous) return undefined;
      const expected = `${await pub("s.ssh-keypair")}\n${await pub("s.ssh-keypair.old")}`;
      return machines.every((m) => m.authorizedKeys() === expected) ? s : undefined;
    }, 30_000, 20);

  before(async () => {
    ls = await startLandscape({ start: DAY0, gardenletTransport: crash.wrap });
    await createShoot(ls, "s", { maintenance: { autoRotation: { credentials: { sshKeypair: { rotationPeriod: "0" } } } } });
    machines = [await ls.startMachine("node-0"), await ls.startMachine("node-1")];
  });
  after(() => ls?.stop());

  it("rotates exactly once after the restart, and a later request rotates once more", async () => {
    const k0 = (await eventually("first key pair", () => pub("s.ssh-keypair"), 30_000))!;
    await eventually("nodes have the first key", () => (machines.every((m) => m.authorizedKeys() === k0) ? true : undefined), 15_000, 20);

    await ls.garden.patch(Shoots, KEY, { type: "merge", body: { metadata: { annotations: { [OP]: "rotate-ssh-keypair" } } } });
    await crash.died;
    const atCrash = await getShoot();
    const started = sshKeypairRotation(atCrash)?.lastInitiationTime;
    assert.equal(started, "2026-03-10T20:00:00Z", "the rotation was started (status written first)");
    assert.equal(atCrash.metadata.annotations?.[OP], "rotate-ssh-keypair", "its request was not consumed");
    assert.equal(atCrash.status?.observedGeneration, atCrash.metadata.generation, "the start recorded the generation it acted on");

    await ls.restartGardenlet();
    const done = await settled();
    const r1 = sshKeypairRotation(done)!;
    assert.equal(r1.lastInitiationTime, started, "no second rotation was initiated");
    const k1 = (await pub("s.ssh-keypair"))!;
    assert.notEqual(k1, k0);
    assert.equal(await pub("s.ssh-keypair.old"), k0, "the previous key is the one from before the request: one rotation");
    const seedKey = await ls.seed.get(Secrets, { namespace: "shoot--p--s", name: "ssh-keypair" });
    assert.equal(seedKey.metadata.labels?.["last-rotation-initiation-time"], String(Date.parse(started!) / 1000));
    for (const m of machines) assert.equal(m.authorizedKeys(), `${k1}\n${k0}`, `${m.name}: the new and the previous key`);

    // A new request (the API server bumps the generation) is not mistaken for the consumed one.
    await ls.garden.patch(Shoots, KEY, { type: "merge", body: { metadata: { annotations: { [OP]: "rotate-ssh-keypair" } } } });
    const again = await settled(started);
    assert.equal(sshKeypairRotation(again)?.lastInitiationTime, "2026-03-10T20:00:01Z", "strictly after the previous initiation");
    const k2 = (await pub("s.ssh-keypair"))!;
    assert.ok(k2 !== k0 && k2 !== k1);
    assert.equal(await pub("s.ssh-keypair.old"), k1);
    for (const m of machines) assert.equal(m.authorizedKeys(), `${k2}\n${k1}`);
  });
});
