/**
 * @module listener/express-loader
 * The one place express (an optional peer) is loaded for the listener, with
 * the install line in the error when it is missing. Loaded through
 * `createRequire` on first use, so importing this module never fails by itself.
 */
import { createRequire } from "node:module";
import type ExpressModule from "express";

/** The line that installs the listener's optional peer. */
export const EXPRESS_INSTALL_LINE = "npm install express";

const require = createRequire(import.meta.url);
let express: typeof ExpressModule | undefined;

/**
 * express, loaded on first use. Throws an `Error` naming the install line
 * when express is not installed (not a loader error from deep inside).
 */
export function loadExpress(): typeof ExpressModule {
  if (express) return express;
  try {
    express = require("express") as typeof ExpressModule;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED") {
      throw new Error(`the loopback listener of arc-agentkit needs the optional peer dependency express (5.x), and it could not be loaded. Install it with: ${EXPRESS_INSTALL_LINE}`, { cause: err });
    }
    throw err;
  }
  return express;
}
