#!/usr/bin/env node
// guard's npm launcher, the package's only file: npm installs, next to it, the one
// optional dependency whose os and cpu fields match this machine
// (@guardlocks/guard-<os>-<cpu>), which carries the guard binary. This runs that
// binary with the same arguments, streams and exit status, so `npx guard ...` and a
// husky script's `guard hook pre-commit` behave exactly as the binary does.
"use strict";

const { spawn } = require("child_process");

const os = process.platform === "win32" ? "windows" : process.platform;
const pkg = `@guardlocks/guard-${os}-${process.arch}`;
const exe = process.platform === "win32" ? "guard.exe" : "guard";

let binary;
try {
  binary = require.resolve(`${pkg}/bin/${exe}`);
} catch (e) {
  console.error(
    `guard: this npm install has no guard binary for ${process.platform}/${process.arch}: ` +
      `the optional dependency ${pkg} is not installed.\n` +
      `  why: npm skips optional dependencies under --omit=optional (or --no-optional), ` +
      `and guard ships for linux, darwin and windows on x64 and arm64 only.\n` +
      `  what now: reinstall without those flags, or install guard another way ` +
      `(https://github.com/guardlocks/guard#install).`
  );
  process.exit(2);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// A signal meant for guard (a terminal's ^C reaches both; kill(1) reaches only this
// launcher) is passed on, so guard can release what it holds before it exits.
const signals = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const sig of signals) {
  try {
    process.on(sig, () => child.kill(sig));
  } catch (e) {
    // Not every signal can be listened for on every platform (Windows).
  }
}

child.on("error", (err) => {
  console.error(`guard: could not run ${binary}: ${err.message}`);
  process.exit(2);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what a shell would have seen.
    for (const sig of signals) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 2 : code);
});
