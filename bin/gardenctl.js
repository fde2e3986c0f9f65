#!/usr/bin/env node
// Launcher: runs the TypeScript entry point from a cached bundle (scripts/bundle.mjs, ADR 0006), so
// that the command starts in a fraction of a second; through tsx when no bundle can be made.
import { run } from "../scripts/bundle.mjs";
await run("src/cmd/gardenctl.ts");
