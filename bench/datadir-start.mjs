// PGlite's start from a kept data directory, as the playground's worker does it (site/assets/kensho-run-worker.js:
// keptDataDir, the tar's files as views of one buffer) against PGlite's own loadDataDir, in Node: time, fresh memory
// (minor page faults) and proof that both give the same thing. The worker's functions are taken from its source
// (no copy of them here). Checks, each of which fails loudly:
// - both loaders write the same tree (every path, mode, size, modification time and byte) from the same tar;
// - an engine started either way answers SHOW ALL and the catalog digest below identically, as the reader's role.
// usage: node bench/datadir-start.mjs PGLITE_DIST_DIR [rounds]   (the dist/ folder of @electric-sql/pglite@0.5.16)
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import vm from 'node:vm';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

const dist = resolve(process.argv[2]) + '/';
const rounds = Number(process.argv[3] || 3);
const pglite = await import(dist + 'index.js');
const { PGlite } = pglite;
// PGlite's own tar reader (loadDataDir's): the chunk that exports it, found by what it exports.
const chunk = readdirSync(dist).filter((f) => /^chunk-.*\.js$/.test(f)).find((f) => /\bJr as b\b/.test(readFileSync(dist + f, 'utf8')));
const { b: loadDataDirInto } = await import(dist + chunk);

// The worker's source, run in a context of its own with PGlite's exports where its import would put them.
const source = readFileSync(new URL('../site/assets/kensho-run-worker.js', import.meta.url), 'utf8');
const context = vm.createContext({ self: {}, performance, Blob, DecompressionStream, TextDecoder, Promise, setTimeout, console });
const worker = vm.runInContext(source + '\n;({ keptDataDir, tarBytes, untarInto, set: (m) => { PGlite = m.PGlite; MemoryFS = m.MemoryFS; } })', context);
worker.set(pglite);

const files = {
  pgliteWasmModule: await WebAssembly.compile(readFileSync(dist + 'pglite.wasm')),
  initdbWasmModule: await WebAssembly.compile(readFileSync(dist + 'initdb.wasm')),
  fsBundle: new Blob([readFileSync(dist + 'pglite.data')]),
};
const reader = (db) => { db.parsers = new Proxy({}, { get: () => (t) => t }); return db; };

// The cluster as the worker makes it: initdb, the reader's role owning the database, dumped as a plain tar (GZIP=1:
// gzipped, as snapshots are).
const made = await PGlite.create(files);
await made.exec("CREATE ROLE kensho_reader NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;"
  + " DO $$ BEGIN EXECUTE format('ALTER DATABASE %I OWNER TO kensho_reader', current_database()); END $$;");
const cluster = await made.dumpDataDir(process.env.GZIP === '1' ? 'gzip' : 'none');

// 1. The same tree from both loaders.
const tree = (FS, root) => {
  const out = [];
  const walk = (dir) => {
    for (const name of FS.readdir(dir).filter((n) => n !== '.' && n !== '..').sort()) {
      const path = dir + '/' + name;
      const stat = FS.stat(path);
      const bytes = FS.isFile(stat.mode) ? createHash('sha256').update(FS.readFile(path)).digest('hex') : 'dir';
      out.push([path.slice(root.length), stat.mode, stat.size, FS.isFile(stat.mode) ? stat.mtime.getTime() : 0, bytes].join(' '));
      if (FS.isDir(stat.mode)) walk(path);
    }
  };
  walk(root);
  return out;
};
made.mod.FS.mkdirTree('/compare/theirs');
made.mod.FS.mkdirTree('/compare/ours');
await loadDataDirInto(made.mod.FS, cluster, '/compare/theirs');
worker.untarInto(made.mod.FS, await worker.tarBytes(cluster), '/compare/ours');
const theirs = tree(made.mod.FS, '/compare/theirs');
assert.ok(theirs.length > 900, 'the cluster has its files: ' + theirs.length);
assert.deepEqual(tree(made.mod.FS, '/compare/ours'), theirs);
await made.close();
console.log(`same tree from both loaders: ${theirs.length} entries`);

// 2. What the reader's statements see, on an engine started either way; 3. what each start costs.
const SEEN = ["SELECT pg_catalog.string_agg(name || '=' || setting, E'\\n' ORDER BY name) FROM pg_catalog.pg_settings",
  "SELECT pg_catalog.md5(pg_catalog.string_agg(pg_catalog.concat_ws(' ', c.oid, c.relname, c.relfilenode, c.relkind, c.relpages, c.reltuples, c.relacl), ',' ORDER BY c.oid)) FROM pg_catalog.pg_class c",
  "SELECT pg_catalog.md5(pg_catalog.string_agg(pg_catalog.concat_ws(' ', d.oid, d.datname, d.datdba::regrole, d.datallowconn, d.datacl), ',' ORDER BY d.oid)) FROM pg_catalog.pg_database d",
  'SELECT current_user, session_user, pg_catalog.version()'];
const start = async (how) => {
  const faults = process.resourceUsage().minorPageFault;
  const began = performance.now();
  const db = reader(await PGlite.create(how === 'theirs' ? { ...files, loadDataDir: cluster } : { ...files, fs: worker.keptDataDir(await worker.tarBytes(cluster)) }));
  await db.exec('SET SESSION AUTHORIZATION kensho_reader');
  const ms = performance.now() - began;
  const seen = [];
  for (const sql of SEEN) seen.push(JSON.stringify((await db.query(sql, [], { rowMode: 'array' })).rows));
  await db.close();
  return { ms, faults: process.resourceUsage().minorPageFault - faults, seen };
};
const figures = { theirs: [], ours: [] };
let reference = null;
for (let round = 0; round < rounds; round++) {
  for (const how of round % 2 ? ['ours', 'theirs'] : ['theirs', 'ours']) {
    const got = await start(how);
    reference ??= got.seen;
    assert.deepEqual(got.seen, reference, how + ' start, round ' + round + ': the reader sees another server');
    figures[how].push(got);
  }
}
const median = (list, key) => list.map((f) => f[key]).sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`same SHOW ALL (${reference[0].split('\\n').length} settings) and catalog from both starts, ${rounds} rounds each`);
for (const how of ['theirs', 'ours']) {
  console.log(`${how === 'theirs' ? "PGlite's loadDataDir" : 'keptDataDir (views)'}: median ${Math.round(median(figures[how], 'ms'))} ms,`
    + ` ${median(figures[how], 'faults')} minor page faults; each: ${figures[how].map((f) => Math.round(f.ms) + ' ms/' + f.faults).join(', ')}`);
}
