import assert from "node:assert/strict";
import { it } from "node:test";
import { CpuTally, demandAt, describeBudget, machineCpu, parseMachineCpu, parseStatCpuMs, threadCpuMs } from "./cpu-budget.ts";

void it("counts user, nice, system, irq and softirq time as busy and steal apart, in ms", () => {
  // user nice system idle iowait irq softirq steal guest guest_nice
  const stat = "cpu  100 5 40 9000 30 1 4 2 50 0\ncpu0 50 2 20 4500 15 0 2 1 25 0\n";
  assert.deepEqual(parseMachineCpu(stat), { busyMs: (100 + 5 + 40 + 1 + 4) * 10, stealMs: 20 });
  assert.throws(() => parseMachineCpu("intr 1 2 3\n"), /expected the "cpu" line first/);
});

void it("reads a thread's CPU from a stat line whose name holds spaces and parentheses", () => {
  const fields = ["S", ...Array.from({ length: 10 }, (_, i) => String(i)), "123", "45", "0", "0"];
  assert.equal(parseStatCpuMs(`4242 (node (worker) 1) ${fields.join(" ")}`), (123 + 45) * 10);
});

void it("sees the machine spend at least what this process's main thread spends", () => {
  // Spins until the thread has used 50 ms of CPU, however long a loaded machine takes to give it that.
  const [thread, machine] = [threadCpuMs(process.pid), machineCpu().busyMs];
  const deadline = performance.now() + 20_000;
  let x = 0;
  while (threadCpuMs(process.pid) < thread + 50) {
    for (let i = 0; i < 100_000; i++) x += Math.sqrt(x + i);
    assert.ok(performance.now() < deadline, "the thread got 50 ms of CPU within 20 s");
  }
  assert.ok(x > 0);
  // Both count in 10 ms ticks: the machine's total holds the thread's 50 ms, less a tick or two.
  assert.ok(machineCpu().busyMs >= machine + 30, "the machine's busy time grew with the thread's");
});

void it("sums slices into CPU per operation and busy cores", () => {
  const t = new CpuTally();
  t.add({ machineMs: 1000, stealMs: 0, clientMs: 10, mainMs: 500 }, { machineMs: 3000, stealMs: 100, clientMs: 610, mainMs: 1300 }, 2000, 1000);
  t.add({ machineMs: 3000, stealMs: 100, clientMs: 610, mainMs: 1300 }, { machineMs: 4000, stealMs: 500, clientMs: 910, mainMs: 1700 }, 1000, 1000);
  assert.deepEqual(t.figures(), { busyCores: 1.5, stealCores: 0.25, machineUsPerOp: 1000, clientUsPerOp: 300, mainThreadUsPerOp: 400 });
  const raw = new CpuTally();
  raw.add({ machineMs: 0, stealMs: 0, clientMs: 0 }, { machineMs: 1500, stealMs: 0, clientMs: 900 }, 3000, 1000);
  assert.deepEqual(raw.figures(), { busyCores: 1.5, stealCores: 0, machineUsPerOp: 500, clientUsPerOp: 300 });
});

void it("says what the reference's rate would take of the machine and of the main thread", () => {
  const creates = { busyCores: 1.5, stealCores: 0.12, machineUsPerOp: 750, clientUsPerOp: 280, mainThreadUsPerOp: 410 };
  const need = demandAt(creates, 2800);
  assert.equal(need.machineCores, 2.1);
  assert.ok(Math.abs(need.mainThreadShare! - 1.148) < 1e-9);
  const line = describeBudget({ busyCores: 1.4, stealCores: 0, machineUsPerOp: 520, clientUsPerOp: 340 }, creates, 2800, 2);
  assert.match(line, /per raw put 520 µs .* at 1\.40 of 2 cores busy \(steal 0\.00\)/);
  assert.match(line, /per create 750 µs .* at 1\.50 of 2 cores busy \(steal 0\.12\)/);
  assert.match(line, /would take 2\.10 of 2 cores and 115% of the main thread's core$/);
  assert.doesNotMatch(describeBudget(creates, { ...creates, mainThreadUsPerOp: undefined }, 2800, 2), /main thread/);
});
