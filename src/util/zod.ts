/**
 * The one place the program takes zod from: its tree-shakable functional API (`zod/mini`), set to zod's English
 * messages. Import it as a namespace (`import * as z from ".../util/zod.ts"`) so the bundler keeps only what is used:
 * classic zod (the package's main entry) puts every method of every schema class in the bundle, ~450 KB the server
 * parsed and kept for its whole life.
 *
 * @module
 */

import { en } from "zod/locales";
import { config } from "zod/mini";

// Classic zod installs the English locale itself; mini does not, and every issue zod words would read "Invalid input".
// `en` comes from the locales' own entry: mini's `locales` namespace would bring every language into the bundle.
config(en());

export * from "zod/mini";
