import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MaintenanceTimeWindow, TimeWindowError, formatMaintenanceTime, parseMaintenanceTime, randomMaintenanceWindow, shootMaintenanceWindow } from "./timewindow.ts";

const at = (hms: string, day = "2026-03-10"): Date => new Date(`${day}T${hms}Z`);
const H = 3_600_000;

describe("maintenance time window", () => {
  it("parses HHMMSS±hhmm into a UTC time of day and formats with +0000", () => {
    assert.equal(formatMaintenanceTime(parseMaintenanceTime("220000+0100")), "210000+0000");
    assert.equal(formatMaintenanceTime(parseMaintenanceTime("003000+0100")), "233000+0000");
    assert.equal(formatMaintenanceTime(parseMaintenanceTime("160554+0200")), "140554+0000");
    assert.equal(formatMaintenanceTime(parseMaintenanceTime("220000-0500")), "030000+0000");
    for (const bad of ["22000+0100", "220000Z", "220000+01:00", "240000+0000", "226000+0000", "220000+1500", ""]) {
      assert.throws(() => parseMaintenanceTime(bad), TimeWindowError, bad);
    }
  });

  it("measures durations across midnight", () => {
    assert.equal(MaintenanceTimeWindow.parse("230000+0000", "010000+0000").durationSeconds(), 2 * 3600);
    assert.equal(MaintenanceTimeWindow.parse("010000+0000", "010000+0000").durationSeconds(), 24 * 3600, "begin == end is a whole day (rejected by validation)");
  });

  it("contains times inclusively at both ends, crossing midnight, at second granularity", () => {
    const cases: [string, string, string[], string[]][] = [
      ["160000+0000", "190000+0000", ["16:00:00", "17:00:00", "19:00:00", "19:00:00.999"], ["15:59:59.999", "19:00:01", "19:01:00"]],
      ["230000+0000", "010000+0000", ["23:00:00", "00:59:00", "01:00:00"], ["22:59:59.999", "02:00:00", "01:00:01"]],
      ["230000+0000", "000000+0000", ["23:00:00", "23:45:00", "00:00:00"], ["22:59:59.999", "01:00:00", "00:00:01"]],
    ];
    for (const [begin, end, inside, outside] of cases) {
      const w = MaintenanceTimeWindow.parse(begin, end);
      for (const t of inside) assert.ok(w.contains(at(t)), `${w} contains ${t}`);
      for (const t of outside) assert.ok(!w.contains(at(t)), `${w} does not contain ${t}`);
    }
  });

  it("ends the effective window 15 minutes earlier; the always-window stays whole", () => {
    assert.equal(String(MaintenanceTimeWindow.parse("010000+0000", "020000+0000").effective()), "010000+0000-014500+0000");
    assert.equal(String(MaintenanceTimeWindow.parse("230000+0000", "001000+0000").effective()), "230000+0000-235500+0000");
    const always = shootMaintenanceWindow({ spec: {} });
    assert.ok(always.isAlways() && always.effective().isAlways());
    assert.ok(always.contains(at("23:59:59.5")) && always.contains(at("00:00:00")));
    assert.ok(shootMaintenanceWindow({ spec: { maintenance: { timeWindow: { begin: "x", end: "y" } } } }).isAlways(), "unparsable: always");
  });

  it("schedules the next run in the next window, a random share into it", () => {
    const w = MaintenanceTimeWindow.parse("160000+0000", "190000+0000");
    assert.equal(w.nextRunDelayMs(at("17:00:00"), () => 0), 23 * H);
    assert.equal(w.nextRunDelayMs(at("17:00:00"), () => 0.999999), 23 * H + Math.floor(0.999999 * 3 * H));
    assert.equal(w.nextRunDelayMs(at("15:00:00"), () => 0), 1 * H);
    assert.equal(w.nextRunDelayMs(at("16:00:00"), () => 0), 24 * H, "a run at the window's begin schedules tomorrow's");
    assert.equal(w.nextRunDelayMs(at("20:00:00"), () => 0), 20 * H);
    const night = MaintenanceTimeWindow.parse("230000+0000", "010000+0000");
    assert.equal(night.nextRunDelayMs(at("00:00:00"), () => 0), 23 * H);
    assert.equal(night.nextRunDelayMs(at("00:00:00"), () => 0.5), 24 * H);
    assert.equal(night.nextRunDelayMs(at("23:30:00"), () => 0), 23.5 * H);
  });

  it("defaults to a one-hour window starting at a full hour 00..22", () => {
    assert.deepEqual(randomMaintenanceWindow(() => 0), { begin: "000000+0000", end: "010000+0000" });
    assert.deepEqual(randomMaintenanceWindow(() => 0.99999), { begin: "220000+0000", end: "230000+0000" });
  });
});
