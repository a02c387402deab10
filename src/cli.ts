#!/usr/bin/env node
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Most of a cold start is V8 compiling modules: where Node has it (22.1+), the compiled code is
// cached on disk and reused by the next start. In the user's own cache directory, not a shared
// /tmp another user could write to; NODE_COMPILE_CACHE overrides it. Before anything else loads:
// the commands and all they import come after, by a dynamic import.
const cache = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
cache?.(process.env.NODE_COMPILE_CACHE || join(homedir(), '.cache', 'selenium-flow', 'node-compile-cache'));
await import('./commands.js');
