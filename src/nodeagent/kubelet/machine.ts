// The machine facts a Node reports (capacity, node info), read from the machine this runs on.
import { readFileSync, statfsSync } from "node:fs";
import { arch, cpus, release, totalmem } from "node:os";
import type { NodeFacts } from "./node-status.ts";

function read(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function osImage(): string {
  const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(read("/etc/os-release"));
  return m?.[1] ?? "Linux";
}

function diskKi(path: string): number {
  try {
    const s = statfsSync(path);
    return Math.floor((s.blocks * s.bsize) / 1024);
  } catch {
    return 0;
  }
}

export function readNodeFacts(hostname: string, internalIP: string | undefined, stateDir = "/"): NodeFacts {
  return {
    hostname,
    ...(internalIP ? { internalIP } : {}),
    cpus: cpus().length || 1,
    memoryKi: Math.floor(totalmem() / 1024),
    ephemeralStorageKi: diskKi(stateDir),
    machineID: read("/etc/machine-id"),
    bootID: read("/proc/sys/kernel/random/boot_id"),
    kernelVersion: release(),
    osImage: osImage(),
    architecture: arch() === "x64" ? "amd64" : arch(),
  };
}
