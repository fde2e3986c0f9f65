#!/usr/bin/env node
// Launcher: runs the TypeScript entry point through tsx (no build step).
import { register } from "tsx/esm/api";
register();
await import("../src/cmd/vpn-seed-proxy.ts");
