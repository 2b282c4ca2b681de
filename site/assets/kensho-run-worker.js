// The reader's PostgreSQL: PGlite (PostgreSQL 18.6 in WebAssembly) in a Web Worker, so that the page stays
// responsive while it starts and runs. It replays a page's snippets as the build ran them (the run plan:
// run order, statements as the build split them, parameters bound as the build bound them) and returns what
// each statement gave: rows as the text the server sent, or the error with its SQLSTATE.
//
// One engine stays alive while the reader reads, and the state before a snippet is kept so that an edited run
// does not start PostgreSQL and replay the page again:
// - a snapshot is a data directory PGlite wrote itself (dumpDataDir; PGlite's own clone() is the same), taken
//   only at a moment the session holds nothing a data directory cannot (no open transaction, no SET, no
//   temporary table, prepared statement, cursor, LISTEN or advisory lock), checked by asking the server; an
//   engine started from it (loadDataDir) is a server that was stopped there and started again, so BEGIN,
//   COMMIT, VACUUM or CREATE DATABASE in the reader's text do on it what they do on a fresh server;
// - the state before a snippet the reader may change is prepared by a second worker beside this one (the page
//   starts it: a second thread, so that the engine the reader runs on stays responsive while it works): once the
//   reader opens or focuses a snippet's editor, or types, the page asks it ('prepare') to bring its one engine to
//   the state before that snippet, from the nearest snapshot and by replaying the snippets after it (as the page
//   always did). The reader's edited run goes to it and starts at once; the two workers then change places, and
//   the other one prepares the same state again for the next edit. Each worker holds one engine;
// - the cluster initdb made (with the role the page runs as) is kept by the browser (Cache Storage, named after
//   the engine's folder, which names PGlite's version), so that a further page starts without initdb; PGlite's
//   WebAssembly is compiled from its response (compileStreaming), which lets the browser keep the compiled code.
let PGlite = null;
/** PGlite's in-memory file system, which a start from a kept data directory extends (see keptDataDir). */
let MemoryFS = null;
/** PGlite's protocol messages and result parser: a request's results before an error are kept, as psql shows them. */
let protocol = null;
let parse = null;
/** The engine of the current request: execute() and the rest run on it. */
let db = null;
/**
 * The engine runs go to: its database, how many of the plan's runs it holds (the state before run `at`), and
 * whether it is still the build's (false once the reader's own SQL ran on it, or a replay ended otherwise).
 */
let live = null;
/** The state before run `target` of the page's plan, by target: {tarball, sequences}; at most SNAPSHOTS of them. */
const snapshots = new Map();
const SNAPSHOTS = 12;
/** The plan whose snapshots these are (a further page in the same worker starts anew). */
let snapshotsOf = null;
/** The initialised cluster (with the reader's role): from the browser's cache, or made by the first start. */
let cluster = null;
/**
 * What Kensho knows of the engine without asking the reader's session: its version(), the built-in types' names (OIDs
 * below 16384, the same on every engine) and what the session state looks like on a freshly started engine (see
 * sessionState). Asked on the engine initdb made, which then serves no run (the reader's engine is started from the
 * cluster it wrote), and kept with the cluster: no query of Kensho's runs in a session the reader's statements run in
 * before them.
 */
let facts = null;
const typeNames = new Map();
/** Rows of one result sent back to the page, as the build keeps at most 1,000 of a result (SqlExecution.ROWS_KEPT). */
const ROWS_SHOWN = 1000;

// One request at a time, in the order they came: a run must never find the database closed or half replayed.
let queue = Promise.resolve();
/** The requests that came and wait for their turn: a preparation gives way to one that is not for its snippet. */
const waiting = [];
self.onmessage = (event) => {
  const { id, request } = event.data;
  request.came = performance.now(); // for the benchmark: how long a run waited behind other work
  waiting.push(request);
  queue = queue.then(async () => {
    waiting.splice(waiting.indexOf(request), 1);
    busy = true;
    try {
      self.postMessage({ id, ok: true, result: await handle(request, (progress) => self.postMessage({ id, progress })) });
    } catch (error) {
      self.postMessage({ id, ok: false, error: String((error && error.message) || error) });
    }
    busy = false;
    if (!waiting.length) keepClusterLater();
  });
};
/** Whether a request is being handled: work for idle time waits until none is. */
let busy = false;
/** When this worker started (ms on its clock): what a run's start took is counted from here, for the benchmark. */
const timings = { worker: 0 };
const mark = (name) => { if (!(name in timings)) timings[name] = Math.round(performance.now()); };

async function handle(request, progress) {
  if (request.type === 'version') {
    // Starts the engine at the page's start; the version is the one asked where the cluster was made (see facts).
    if (!live) live = await boot(request.engine, null, progress);
    return facts.version;
  }
  if (request.type === 'files') {
    // For the worker beside this one: the compiled WebAssembly (a module posts to a worker of the same page), the
    // file-system image and the initialised cluster, so that it neither fetches, reads nor compiles them again.
    const { pgliteWasmModule, initdbWasmModule, fsBundle } = await engineFiles(request.engine, null);
    const made = await initialCluster(request.engine);
    return { pgliteWasmModule, initdbWasmModule, fsBundle, cluster: made, facts: made ? facts : null };
  }
  if (request.type === 'retire') {
    // The reader left the snippet this engine was prepared for: its memory is given back.
    retire(live);
    live = null;
    return null;
  }
  if (request.type === 'prepare') {
    const given = request.files;
    if (given && !files && given.pgliteWasmModule instanceof WebAssembly.Module && given.initdbWasmModule instanceof WebAssembly.Module) {
      files = Promise.resolve({ pgliteWasmModule: given.pgliteWasmModule, initdbWasmModule: given.initdbWasmModule, fsBundle: given.fsBundle });
    }
    if (given && !cluster && given.cluster instanceof Blob && given.facts && typeof given.facts.version === 'string') {
      cluster = given.cluster;
      learn(given.facts);
    }
    return prepare(pagePlan(request), request.target);
  }
  return run(request, progress);
}

/** The cache that keeps the initialised cluster, named after the engine's folder (assets/pglite/VERSION/). */
function clusterCache(engine) {
  return self.caches ? self.caches.open('kensho-cluster ' + new URL(engine).pathname) : Promise.resolve(null);
}
// Kept as a plain tar (40 MB, against 4.5 MB gzipped): a start then neither gunzips it (1.5 s of a start at load 17
// in Node) nor holds it twice; the browser's storage, not its memory, pays the difference.
const CLUSTER_KEY = 'kensho-initialised-cluster-2.tar';
/** The facts asked where the cluster was made (see facts), kept beside it: a cluster kept without them is made anew. */
const FACTS_KEY = 'kensho-initialised-cluster-facts-2.json';

/** Takes facts asked where a cluster was made. */
function learn(known) {
  facts = known;
  for (const [oid, name] of known.types) typeNames.set(oid, name);
}

/** The initialised cluster: kept by the browser, or made now (initdb) and kept. */
async function initialCluster(engine) {
  if (cluster) return cluster;
  try {
    const cache = await clusterCache(engine);
    // The gzipped copy earlier versions kept under another key: its 4.5 MB given back (this one replaces it).
    if (cache) cache.delete(new URL('kensho-initialised-cluster.tar.gz', engine).href).catch(() => {});
    const kept = cache && await cache.match(new URL(CLUSTER_KEY, engine).href);
    const known = kept && await cache.match(new URL(FACTS_KEY, engine).href);
    if (kept && known) {
      const read = await known.json();
      if (typeof read.version === 'string' && typeof read.session === 'string' && Array.isArray(read.types)) {
        learn(read);
        cluster = await kept.blob();
        return cluster;
      }
    }
  } catch (error) {
    // No cache (a private window, storage refused): the cluster is made here instead.
  }
  return null;
}

/** The cluster this worker made and the browser does not keep yet: {engine, cluster}, or null. */
let unkept = null;
/** Idle time after a request (ms) before the made cluster is written to the browser's storage. */
const KEEP_AFTER_MS = 100;

/**
 * Writes the cluster initdb made to Cache Storage once this worker is idle KEEP_AFTER_MS after a request (the reader
 * has their result): a later page starts from it without initdb. A request at work then puts the write off to its
 * end; the write itself is the browser's work, not this thread's.
 */
function keepClusterLater() {
  if (!unkept) return;
  setTimeout(() => {
    if (!unkept || busy || waiting.length) return;
    const { engine, cluster: made, facts: known } = unkept;
    unkept = null;
    // The facts first: a cluster found without them is not used (see initialCluster).
    clusterCache(engine).then((cache) => cache && cache.put(new URL(FACTS_KEY, engine).href,
      new Response(JSON.stringify(known), { headers: { 'Content-Type': 'application/json' } }))
      .then(() => cache.put(new URL(CLUSTER_KEY, engine).href, new Response(made, { headers: { 'Content-Type': 'application/x-tar' } }))))
      .catch(() => {});
  }, KEEP_AFTER_MS);
}

/** PGlite's WebAssembly (the server and initdb) compiled, and its file-system image: fetched once per worker. */
let files = null;
/** The files PGlite would fetch itself, fetched here instead so that the page can say how many bytes have come. */
const ENGINE_FILES = ['pglite.wasm', 'initdb.wasm', 'pglite.data'];

/**
 * PGlite's files as PGlite.create takes them (pgliteWasmModule, initdbWasmModule, fsBundle), fetched with the bytes
 * counted: `progress({loaded, total})` each tenth of a megabyte, the total only when every response says its length
 * as it is read (a host that compresses them says the compressed length, or none).
 */
function engineFiles(engine, progress) {
  if (!files) {
    files = fetchCounted(engine, progress || (() => {}));
    files.catch(() => { files = null; });
  }
  return files;
}

async function fetchCounted(engine, progress) {
  const responses = await Promise.all(ENGINE_FILES.map((name) => fetch(new URL(name, engine))));
  responses.forEach((r, i) => { if (!r.ok) throw new Error(new URL(ENGINE_FILES[i], engine).href + ': HTTP ' + r.status); });
  mark('fetched');
  const lengths = responses.map((r) => (r.headers.get('Content-Encoding') ? NaN : Number(r.headers.get('Content-Length') || NaN)));
  const total = lengths.every(Number.isFinite) ? lengths.reduce((a, b) => a + b, 0) : null;
  let loaded = 0;
  let said = -1;
  const tell = (last) => {
    const tenths = Math.floor(loaded / 100000);
    if (tenths !== said || (last && said !== loaded / 100000)) {
      said = last ? loaded / 100000 : tenths;
      progress({ loaded, total });
    }
  };
  tell();
  // The WebAssembly is compiled from the response itself, as it comes: the browser keeps the code it compiled from
  // a response it took from its HTTP cache, and a further page skips compiling it. The bytes are counted on a copy.
  // A host that does not send .wasm as application/wasm (compileStreaming refuses it): compiled from the bytes.
  const streams = responses.slice(0, 2).map((r) => /^application\/wasm\b/i.test(r.headers.get('Content-Type') || ''));
  const counted = responses.map((r, i) => (streams[i] ? r.clone() : r));
  const modules = responses.slice(0, 2).map((r, i) => (streams[i] ? WebAssembly.compileStreaming(r) : null));
  const bodies = await Promise.all(counted.map(async (response) => {
    const reader = response.body.getReader();
    const chunks = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.byteLength;
      tell();
    }
    return new Blob(chunks);
  }));
  tell(true); // the last figure is every byte
  mark('read');
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all(modules.map(async (m, i) => m || WebAssembly.compile(await bodies[i].arrayBuffer())));
  mark('compiled');
  return { pgliteWasmModule, initdbWasmModule, fsBundle: bodies[2] };
}

/**
 * A started engine at the state of `tarball` (null: the initialised cluster), the session as the build's: the
 * build runs a page as a role that owns its database and is no superuser and bypasses no row security; so does
 * the browser, or row security, privileges and current_user would answer otherwise than they did.
 */
/**
 * The server's start-up options: PGlite's own (PGlite.defaultStartParams in 0.5.16) less two that a stock server does not
 * have and the build's does not either: `-O` (allow_system_table_mods, which let a reader's `CREATE SCHEMA pg_x` succeed
 * where the build's fails) and `search_path=public` (a stock session's is `"$user", public`, so a table made after
 * `CREATE SCHEMA AUTHORIZATION CURRENT_USER` went elsewhere than at build). What stays only shapes a one-process server.
 */
const STOCK_START = ['--single', '-F', '-j', '-c', 'exit_on_error=false', '-c', 'log_checkpoints=false', '-c', 'max_worker_processes=0',
  '-c', 'max_parallel_workers=0', '-c', 'max_parallel_workers_per_gather=0', '-c', 'io_method=sync', '-c',
  'max_parallel_maintenance_workers=0'];

async function boot(engine, tarball, progress) {
  // PGlite's code, its WebAssembly and the cluster the browser keeps do not wait for each other: importing the code and
  // reading the kept cluster's 40 MB from the browser's storage go on while the WebAssembly is fetched and compiled
  // (one after another they were most of a further page's start before PGlite.create).
  const imported = PGlite ? null : import(engine + 'index.js').then((module) => {
    ({ PGlite, MemoryFS, protocol, parse } = module);
    mark('imported');
  });
  const kept = tarball ? null : initialCluster(engine);
  // The kept copy's bytes (the Blob is read only here); a damaged copy fails below, where it is started.
  const keptTar = kept && kept.then((blob) => (blob ? tarBytes(blob) : null)).then((tar) => { if (tar) mark('tar'); return tar; });
  if (keptTar) keptTar.catch(() => {});
  const [, files] = await Promise.all([imported, engineFiles(engine, progress)]);
  const loaded = { ...files, startParams: STOCK_START };
  let base = tarball || await kept;
  mark('cluster');
  let made;
  if (base && !tarball) {
    // The browser's copy of the cluster is read as any stored file may be: damaged (a write cut short, a full disk)
    // or not the one this code kept. One that does not start is deleted and the cluster made anew, as on a first visit.
    try {
      const tar = await keptTar;
      made = await PGlite.create({ ...loaded, fs: keptDataDir(tar) });
    } catch (error) {
      cluster = null;
      base = null;
      await clusterCache(engine).then((cache) => cache && cache.delete(new URL(CLUSTER_KEY, engine).href)).catch(() => {});
    }
  } else if (base) {
    made = await PGlite.create({ ...loaded, fs: keptDataDir(await tarBytes(base)) });
  }
  if (!made) {
    made = await PGlite.create(loaded);
    await made.exec("CREATE ROLE kensho_reader NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;"
      + " DO $$ BEGIN EXECUTE format('ALTER DATABASE %I OWNER TO kensho_reader', current_database()); END $$;");
    mark('initdb');
    cluster = await made.dumpDataDir('none');
    mark('dumped');
    // What Kensho needs to know of the engine is asked here, on this engine, which then serves no run: the reader's
    // engine is started from the cluster just written, a fresh server whose session ran nothing of Kensho's.
    made.parsers = new Proxy({}, { get: () => (text) => text });
    await made.exec('SET SESSION AUTHORIZATION kensho_reader');
    db = made;
    const version = (await made.query('SELECT version()', [], { rowMode: 'array' })).rows[0][0];
    const types = (await made.query('SELECT oid::text, typname FROM pg_catalog.pg_type WHERE oid < 16384', [], { rowMode: 'array' }))
      .rows.map(([o, n]) => [Number(o), n]);
    learn({ version, types, session: (await sessionState()).state });
    await made.close();
    mark('facts');
    made = await PGlite.create({ ...loaded, fs: keptDataDir(await tarBytes(cluster)) });
    // Kept for later pages once the reader has their first result and the worker is idle (see keepClusterLater):
    // writing 40 MB to the browser's storage beside the first run slowed that run.
    unkept = { engine, cluster, facts };
  }
  // Values as the server sent them, as psql prints them: no conversion to JavaScript numbers or dates.
  made.parsers = new Proxy({}, { get: () => (text) => text });
  await made.exec('SET SESSION AUTHORIZATION kensho_reader');
  mark('started');
  const started = { db: made, at: 0, clean: true, origin: { from: 0, kept: null } };
  if (tarball) started.at = -1; // the caller says which state it is
  return started;
}

/**
 * A data directory kept as a tar (the cluster, a snapshot), as PGlite's file system to start from. PGlite's own
 * `loadDataDir` reads the same tar into the same files, but copies every byte three times on the way (the gzip's
 * output joined from its chunks, each file cut out of that, then copied into the file), 160 MB of fresh memory for
 * the 40 MB cluster; a fresh page of memory costs a page fault, and on a loaded machine those faults were most of a
 * start's time. Here the tar is one buffer and each file's contents is a view of it (MEMFS's `canOwn`: the file owns
 * its bytes and grows into a copy of its own when written past its end). Everything else is done as loadDataDir does
 * it, call for call: the same folders made with the same calls, the same files written with the same default modes,
 * the same modification times; so the server finds the same data directory, and PGlite, seeing PG_VERSION there,
 * starts on it as on one it kept (no initdb). The tar is this engine's own (each start reads the Blob anew), since
 * the server writes into it.
 */
function keptDataDir(tar) {
  return new (class extends MemoryFS {
    async init(pg, options) {
      const { emscriptenOpts } = await super.init(pg, options);
      return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun || []), (module) => untarInto(module.FS, tar, PGlite.paths.PGDATA)] } };
    }
  })();
}

/** The bytes of a kept tar, gunzipped into one buffer of the size the gzip's trailer says (ISIZE) when it is gzip. */
async function tarBytes(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  if (!(bytes[0] === 0x1f && bytes[1] === 0x8b)) return bytes;
  const n = bytes.length;
  let out = new Uint8Array((bytes[n - 4] | (bytes[n - 3] << 8) | (bytes[n - 2] << 16) | (bytes[n - 1] << 24)) >>> 0);
  let length = 0;
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.length > out.length) {
      // ISIZE is the size modulo 4 GiB: a tar it misstates still loads, through a larger copy.
      const larger = new Uint8Array(Math.max(out.length * 2, length + value.length));
      larger.set(out.subarray(0, length));
      out = larger;
    }
    out.set(value, length);
    length += value.length;
  }
  return length === out.length ? out : out.subarray(0, length);
}

/**
 * Writes the files of a tar (ustar, as PGlite's dumpDataDir writes it) under `root`, as PGlite's loadDataDir does:
 * each entry's folders made with mkdirTree where absent, a regular file written with writeFile (here owning a view of
 * the tar instead of a copy) and given the tar's modification time, a folder made where absent; other entries (none
 * in a data directory) skipped, as there. Reading stops at the end-of-archive blocks.
 */
function untarInto(FS, tar, root) {
  // A header's fields read as the tar library PGlite uses reads them (bytes as characters; numbers in octal).
  const field = (from, length) => String.fromCharCode.apply(null, tar.subarray(from, from + length));
  const number = (from, length) => parseInt(field(from, length).replace(/^0+$/g, ''), 8) || 0;
  let at = 0;
  while (tar.length - at >= 512) {
    if (tar.subarray(at, Math.min(tar.length, at + 1024)).every((b) => b === 0)) break;
    const named = field(at, 100);
    const name = named.includes('\0') ? named.slice(0, named.indexOf('\0')) : named;
    const type = (parseInt(String.fromCharCode(tar[at + 156]), 10) || 0) % 8;
    const size = type === 0 ? number(at + 124, 12) : 0;
    // A damaged or foreign tar must neither loop (a negative size walks back to a header already read) nor write
    // outside the data directory (a name with a .. part): it fails here, and the caller starts from a fresh cluster.
    if (!(size >= 0) || at + 512 + size > tar.length || name.split('/').includes('..')) {
      throw new Error('the kept data directory is damaged at byte ' + at + ' (' + JSON.stringify(name) + ')');
    }
    // No time in the header: loadDataDir gives the file the time it is written.
    const modified = tar[at + 136] === 0 ? Date.now() : number(at + 136, 12) * 1000;
    at += 512;
    const path = root + '/' + name;
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (folder.length && !FS.analyzePath(folder).exists) FS.mkdirTree(folder);
    }
    if (type === 0) {
      FS.writeFile(path, tar.subarray(at, at + size), { canOwn: true });
      FS.utime(path, modified, modified);
    } else if (type === 5 && !FS.analyzePath(path).exists) {
      FS.mkdir(path);
    }
    at += Math.ceil(size / 512) * 512;
  }
}

/**
 * What the session holds beyond the data directory, as the server reports it: settings changed with SET, the
 * roles, temporary relations, prepared statements, cursors, LISTEN, advisory locks; and whether a sequence was
 * used (currval and lastval answer from the session: a snapshot with them is not used for text that asks them).
 */
async function sessionState() {
  const found = await db.query("SELECT pg_catalog.json_build_object("
    + "'settings', (SELECT pg_catalog.json_agg(name || '=' || setting ORDER BY name) FROM pg_catalog.pg_settings WHERE source = 'session'),"
    + " 'user', current_user, 'session', session_user,"
    + " 'temp', (SELECT count(*) FROM pg_catalog.pg_class WHERE relnamespace = pg_catalog.pg_my_temp_schema()),"
    + " 'prepared', (SELECT count(*) FROM pg_catalog.pg_prepared_statements),"
    + " 'cursors', (SELECT count(*) FROM pg_catalog.pg_cursors),"
    + " 'listen', (SELECT count(*) FROM pg_catalog.pg_listening_channels()),"
    + " 'locks', (SELECT count(*) FROM pg_catalog.pg_locks WHERE pid = pg_catalog.pg_backend_pid() AND locktype = 'advisory'))::text",
  [], { rowMode: 'array' });
  const sequences = !(await execute('SELECT pg_catalog.lastval()')).error;
  return { state: found.rows[0][0], sequences };
}

/**
 * Whether an engine started from the snapshot of the state before run `from` may replay runs from..target-1 and
 * run `text`: always from the page's start (the initialised cluster); else not when the snapshot had a sequence
 * used and the text asks currval or lastval, nor when the text reads statistics counters (a start clears them),
 * nor after a snippet seeded random().
 */
function usable(plan, origin, target, text) {
  const { from, kept } = origin;
  if (from === 0) return true;
  if (timedBefore(plan, from)) return false; // the snapshot would hold times of when it was made (see readsClock)
  if (plan.runs.slice(0, from).some((r) => restartsOtherwise(r.sql))) return false;
  const texts = plan.runs.slice(from, target).map((r) => r.sql || '').concat([text]);
  if (kept.sequences && texts.some((t) => /currval|lastval/i.test(t))) return false;
  return !texts.some((t) => /setseed|pg_stat/i.test(t)) && !plan.runs.slice(0, from).some((r) => /setseed/i.test(r.sql || ''));
}

/**
 * Whether SQL reads the clock or waits on it: the current time (now(), CURRENT_TIMESTAMP, 'now' and the like, the
 * one-argument age()) or a sleep. Once a time a snippet read is kept in the state, a later snippet's outcome may
 * depend on how long ago the earlier ones ran (a lease of 3 seconds taken by one snippet has expired or not when the
 * next runs), as on the build's server, which ran them one after another. A state kept for later, in a snapshot or on
 * an engine prepared while the reader reads, would hold rows written at the time it was made, not at the time of the
 * run. So in a state that may hold a time (see timedStates) nothing is prepared in the background and no snapshot is
 * kept or used: an edited run there starts from the last state without one and replays, just before it runs, as the
 * page always did. (That the preparation would take the CPU from a lease the reader's next run checks no longer holds
 * a state back: it runs in a thread of its own, which the page ends the moment the reader runs another snippet.)
 */
function readsClock(sql) {
  return /\b(now|current_timestamp|current_date|current_time|localtime|localtimestamp|transaction_timestamp|statement_timestamp|clock_timestamp|timeofday|age|pg_sleep|pg_sleep_for|pg_sleep_until)\b|'\s*(now|today|tomorrow|yesterday)\s*'/i
    .test(sql || '');
}

/**
 * Which states of the plan may hold a time a snippet read (see readsClock): `timed[at]` for the state before run `at`,
 * read from the build's statements in the order the build ran them. A clock read outside a transaction block, or in
 * one that commits, is kept from there on. One in a transaction block the page rolls back (keyset's burst of inserts
 * into a temporary table, BEGIN … ROLLBACK) is kept only until that ROLLBACK: the rollback takes away every row, table
 * and setting written in the block, so the states after it hold no time and are prepared and kept as on any page.
 * Where the reading is not sure, a time is taken as kept: a statement in the block that may end it otherwise than by a
 * plain ROLLBACK (it names COMMIT, END, PREPARE, ROLLBACK or ABORT, or starts with a comment of its own; every clock
 * read after it is then kept too, since whether a block is open is no longer known), one that writes where a
 * rollback does not reach (a sequence, an advisory lock, another session through dblink), a snippet the build saw
 * fail (its later statements did not run), and an exercise whose data sets read the clock.
 */
function timedStates(plan) {
  const timed = [false];
  let kept = false; // a time is in the state for good
  let open = false; // in a transaction block a statement of the page began
  let clockInBlock = false;
  let leaks = false; // the block wrote where its rollback does not reach
  let sure = true; // whether `open` follows the server (not after a snippet the build saw fail)
  const head = (sql) => sql.replace(/^(\s|--[^\n]*(\n|$))*/, '');
  plan.runs.forEach((r, i) => {
    const statements = Array.isArray(r.statements) && r.statements.length ? r.statements : [r.sql || ''];
    for (const statement of statements) {
      const text = head(statement);
      if (readsClock(statement)) {
        if (open && sure) clockInBlock = true;
        else kept = true;
      }
      if (open && /\b(setval|nextval|advisory|dblink)/i.test(statement)) leaks = true;
      if (/^(BEGIN|START\s+TRANSACTION)\b/i.test(text) && !/\b(COMMIT|END|PREPARE)\b/i.test(text)) {
        if (!open) {
          open = true;
          clockInBlock = false;
          leaks = false;
        }
      } else if (/^(ROLLBACK|ABORT)(\s+(WORK|TRANSACTION))?(\s+AND\s+(NO\s+)?CHAIN)?\s*;?\s*$/i.test(text)) {
        if (open && clockInBlock && leaks) kept = true;
        clockInBlock = false;
        leaks = false;
        open = open && /\bAND\s+CHAIN\b/i.test(text) && !/\bNO\s+CHAIN\b/i.test(text);
      } else if (open && (/\b(COMMIT|END|PREPARE|ROLLBACK|ABORT)\b/i.test(statement) || /^\/\*/.test(text))) {
        // A commit, or what may end the block otherwise than a plain ROLLBACK (ROLLBACK TO SAVEPOINT, a ROLLBACK with a
        // comment after it): a time read in the block stays, and whether a block is still open is not read from here on.
        if (clockInBlock) kept = true;
        clockInBlock = false;
        sure = false;
      }
    }
    if (r.expect && r.expect.error) {
      // The build saw a statement of it fail: which of its statements ran, and whether a block is open, is not read here.
      if (clockInBlock || statements.some(readsClock)) kept = true;
      sure = false;
    }
    if ((r.cases || []).some((c) => c.statements.some(readsClock))) kept = true;
    timed[i + 1] = kept || clockInBlock;
  });
  return timed;
}

/** Whether the state before run `at` may hold a time a snippet read (see timedStates). */
function timedBefore(plan, at) {
  return at > 0 && plan.timed[Math.min(at, plan.timed.length - 1)] !== false;
}

/**
 * Whether SQL makes something an engine started from a snapshot does not hold as it was: a sequence (serial or
 * identity column, CREATE SEQUENCE), which the start recovers at the value it logged ahead (nextval gave 4 on the
 * engine, 34 on one started from its snapshot), or an unlogged table, which the start empties (PGlite writes the
 * data directory of a running server: starting from it is recovery after a crash). A snapshot after such a
 * snippet is neither kept nor used; the state before a later snippet is reached by a replay from the page's start.
 */
// Recovery also sets the OID counter to the value it logged ahead (a table made after a start from a snapshot got
// OID 24576 where the running engine gave 16390): OIDs only move forward, so objects keep their order by OID and
// their names; and no verified result can show an absolute OID, since the build's page database is made on a server
// shared with the site's other pages. That needs no rule here.
function restartsOtherwise(sql) {
  return /\b(serial[248]?|bigserial|smallserial|sequence|nextval|setval|identity|unlogged)\b/i.test(sql || '');
}

/** The states (plan key and run index) whose session held more than a data directory: not asked again. */
const unkeepable = new Set();

/**
 * Keeps the state the engine `e` is in (before run e.at) when the session holds nothing a data directory cannot.
 * Returns whether the session was asked: the engine then ran a query of Kensho's after the page's statements, and no
 * run may use it (a later statement could see it: the statistics it counted, the lastval() error it rolled back).
 */
async function keepSnapshot(plan, e) {
  const key = plan.key + '\n' + e.at;
  if (snapshotsOf !== plan.key || snapshots.has(e.at) || unkeepable.has(key) || !e.clean || timedBefore(plan, e.at)) return false;
  if (plan.runs.slice(0, e.at).some((r) => restartsOtherwise(r.sql))) return false;
  // A transaction must not be open: only then is everything the session did in the data directory. Asked of the
  // server without a statement, since a statement in the reader's transaction could change or abort it.
  if (e.db.isInTransaction()) return false;
  db = e.db;
  const session = await sessionState();
  if (session.state !== facts.session) {
    unkeepable.add(key);
    return true;
  }
  snapshots.set(e.at, { tarball: await e.db.dumpDataDir('gzip'), sequences: session.sequences });
  while (snapshots.size > SNAPSHOTS) {
    // Keep the page's start; drop the oldest other.
    const oldest = [...snapshots.keys()].find((k) => k !== 0);
    snapshots.delete(oldest);
  }
  // Asked either way: the snapshot is kept, and the engine asked serves no run.
  return true;
}

/** An engine at the state before run `target` (clean), from the nearest usable snapshot and a replay; null if a replay diverged. */
async function engineAt(engine, plan, target, text, progress) {
  let from = 0;
  for (const [at, kept] of snapshots) {
    if (at <= target && at > from && usable(plan, { from: at, kept }, target, text)) from = at;
  }
  const kept = snapshots.get(from);
  const e = await boot(engine, from > 0 ? kept.tarball : null, progress);
  e.at = from;
  e.origin = { from, kept };
  let diverged;
  try {
    diverged = await replay(plan, e, target, progress);
  } catch (error) {
    retire(e);
    throw error;
  }
  return diverged ? { engine: e, diverged } : { engine: e };
}

/** Whether a request waits that work for later (preparing the engine for `target`) should give way to. */
async function superseded(target) {
  await new Promise((resolve) => setTimeout(resolve, 0)); // lets the requests that came in be counted
  return waiting.some((r) => !(r.type === 'run' || r.type === 'prepare') || r.target !== target);
}

/**
 * Replays runs e.at..target-1 on engine e as the build ran them; what diverged, if a replayed snippet ended
 * otherwise. Work for later (no `progress`) stops when a request for another snippet comes.
 */
async function replay(plan, e, target, progress) {
  if (e.at < target && progress) progress('replaying');
  for (let i = e.at; i < target; i++) {
    if (!progress && await superseded(target)) throw new Error('superseded');
    db = e.db;
    const earlier = plan.runs[i];
    const outcome = await runAsBuilt(earlier, earlier.sql);
    e.at = i + 1;
    const expectedError = (earlier.expect && earlier.expect.error) || null;
    const got = outcome.error ? outcome.error.sqlstate : null;
    if (expectedError !== got) {
      e.clean = false;
      return { line: earlier.line, expected: expectedError, error: outcome.error || null };
    }
  }
  return null;
}

/** Closes an engine no run will use again, after the current work (closing is not waited for). */
function retire(e) {
  if (e && e.db) e.db.close().catch(() => {});
}

/**
 * Brings this worker's engine to the state before run `target` while the reader reads or types (the page asks the
 * worker beside the one it runs on, a thread of its own), so that their edited run there starts at once; and keeps
 * a snapshot of that state. False when it is not prepared: in a state that may hold a time a snippet read (see
 * readsClock, timedStates), or when a replayed snippet ended otherwise. The run checks that the engine fits its text.
 */
async function prepare(plan, target) {
  const began = performance.now();
  if (timedBefore(plan, target)) {
    retire(live);
    live = null;
    return false;
  }
  if (live && live.clean && live.at >= 0 && live.at <= target && usable(plan, live.origin, target, '')) {
    if (await replay(plan, live, target, null)) {
      retire(live);
      live = null;
      return false;
    }
  } else {
    retire(live);
    live = null;
    const made = await engineAt(plan.engine, plan, target, '', null);
    if (made.diverged) {
      retire(made.engine);
      return false;
    }
    live = made.engine;
  }
  // A snapshot of it, unless the reader waits for this very state now (it is taken the next time). The engine asked
  // is then replaced by one the reader's statements may run on: started from that snapshot (a fresh server at the same
  // state, as any start from a snapshot), or, where the session held more than a snapshot keeps, brought there again.
  if (!waiting.length && await keepSnapshot(plan, live)) {
    retire(live);
    live = null;
    const made = await engineAt(plan.engine, plan, target, '', null);
    if (made.diverged) {
      retire(made.engine);
      return false;
    }
    live = made.engine;
  }
  live.prepared = true;
  // For the benchmark: when this preparation began and ended (ms on this worker's clock, as its other marks).
  live.preparedMs = { prepareBegan: Math.round(began), prepareReady: Math.round(performance.now()) };
  db = live.db;
  return true;
}

/**
 * A result column's type name. Built-in types (OIDs below 16384) are the same on every engine and were read at the
 * worker's first start. The page's own types are asked only where the reader's own text ran (`askCatalog`): on the
 * engine the build's statements run on, nothing of Kensho's runs between them, and the OID stands for the name (the
 * build too names such a type by its OID; see the page's sameType).
 */
let askCatalog = false;
async function typeName(oid) {
  if (typeNames.has(oid)) return typeNames.get(oid);
  if (!askCatalog) return String(oid);
  try {
    const found = await db.query('SELECT oid::text, typname FROM pg_catalog.pg_type WHERE oid < 16384 OR oid = $1', [oid], { rowMode: 'array' });
    let name = null;
    for (const [o, n] of found.rows) {
      if (Number(o) < 16384) typeNames.set(Number(o), n);
      if (Number(o) === oid) name = n;
    }
    return name || String(oid);
  } catch (error) {
    return String(oid); // in a transaction the reader's text left failed, the server answers nothing until it ends
  }
}

/**
 * Runs one statement (or, for text the reader changed, the whole text as one request) and says what it gave:
 * every result up to an error, and the error (the simple query protocol, as psql sends it).
 */
async function execute(sql) {
  const { messages } = await db.execProtocol(protocol.serialize.query(sql), { throwOnError: false });
  const failed = messages.find((m) => m.name === 'error');
  const tables = await tablesOf(parse.parseResults(messages.filter((m) => m.name !== 'error'), db.parsers, { rowMode: 'array' }));
  // The session's transaction status when the server was ready again: I idle, T in a transaction, E in a failed one.
  const ready = messages.filter((m) => m.name === 'readyForQuery').pop();
  const status = ready ? ready.status : null;
  return failed ? { tables, status, error: { sqlstate: failed.code, message: failed.message, detail: failed.detail || null } } : { tables, status };
}

/** Tables as the page shows them: at most ROWS_SHOWN rows each, with the count. */
async function tablesOf(results) {
  const tables = [];
  for (const r of results) {
    if (r.fields.length > 0) {
      const types = [];
      for (const f of r.fields) types.push(await typeName(f.dataTypeID));
      // The type OIDs too: where the build could only name a type by its OID (one the page created), the page compares OIDs' kind.
      tables.push({ columns: r.fields.map((f) => f.name), types, oids: r.fields.map((f) => f.dataTypeID), rows: r.rows.slice(0, ROWS_SHOWN), total: r.rows.length });
    }
  }
  return tables;
}

/**
 * The reader's own text for a snippet with parameters, bound as the build binds the verified one: prepared with the
 * parameters' types as the build names them (the server resolves the names, as the build's did; Kensho asks the
 * session nothing first), executed with the same values, deallocated. The PREPARE goes through the extended protocol,
 * which refuses a second statement before anything runs, so the reader's text is one statement, as the build's was.
 */
async function executeBound(binding, text) {
  // An EXPLAIN of the statement (the panel's plan button, or the reader's own) explains its EXECUTE: PREPARE takes a
  // query, never an EXPLAIN of one.
  const head = EXPLAIN_HEAD.exec(text);
  const query = head ? text.slice(head[0].length) : text;
  try {
    await db.query(binding.prefix + query, [], { rowMode: 'array' });
  } catch (error) {
    if (!error || !error.code) throw error;
    const outcome = { tables: [], error: { sqlstate: error.code, message: error.message } };
    // A syntax error of the PREPARE may be the reader's own typo, or the PREPARE itself: their text is several
    // statements (`SET …; SELECT …`), or one statement PREPARE does not take (SET, CREATE …). The server tells which:
    // the text alone, parsed (an unnamed statement, nothing executed), answers as it would outside a PREPARE. Asked
    // only now, after the reader's text was refused (nothing of it ran), on an engine no later run uses.
    if (error.code === '42601') {
      const refused = await whyNotPrepared(query);
      if (refused) outcome.boundRefused = refused;
    }
    return outcome;
  }
  const outcome = await execute(head ? head[1] + ' ' + binding.execute : binding.execute);
  await execute(binding.deallocate);
  return outcome;
}

/**
 * Why the server's PREPARE refused a text that is no typo: 'several' where the text holds more than one statement (the
 * extended protocol's Parse refuses them with 42601 and no position), 'notQuery' where the text alone parses as one
 * statement (Parse answered, or failed past the grammar: an unknown table, an aborted transaction); null where the
 * text alone is a syntax error too (a position in it), which the server's own message says best.
 */
async function whyNotPrepared(text) {
  let messages = [];
  try {
    messages = (await db.execProtocol(protocol.serialize.parse({ text }), { throwOnError: false })).messages;
  } finally {
    messages = messages.concat((await db.execProtocol(protocol.serialize.sync(), { throwOnError: false })).messages);
  }
  const failed = messages.find((m) => m.name === 'error');
  if (!failed) return 'notQuery';
  if (failed.code !== '42601') return 'notQuery';
  return failed.position ? null : 'several';
}

/** EXPLAIN with its options, written either way (in parentheses, or ANALYZE and VERBOSE after it). */
const EXPLAIN_HEAD = /^(\s*explain\b(?:\s*\([^()]*\))?(?:\s+(?:analyze|analyse|verbose)\b)*)\s*/i;

/** Runs a snippet of the plan as the build ran it: statement by statement, the last one bound when it has parameters. */
async function runAsBuilt(snippet, text) {
  const statements = text === snippet.sql ? snippet.statements : null;
  const tables = [];
  if (snippet.binding) {
    if (!statements) return executeBound(snippet.binding, text);
    // The build's own statements, as it sent them (the simple query protocol).
    let outcome = await execute(snippet.binding.prefix + statements[0]);
    if (outcome.error) return { tables, error: outcome.error };
    outcome = await execute(snippet.binding.execute);
    await execute(snippet.binding.deallocate);
    return outcome;
  }
  if (!statements) {
    return execute(text);
  }
  for (const statement of statements) {
    const outcome = await execute(statement);
    tables.push(...outcome.tables);
    if (outcome.error) return { tables, error: outcome.error };
  }
  return { tables };
}

/**
 * Brings an engine to the state the build had just before run `target`, then runs `text` there: the snippet's
 * own text (verified) or the reader's. A replayed snippet that does not end as the build's did is reported, so
 * that the page never compares a run made from another state.
 */
/**
 * The page's plan of a request, with what the worker derives from it: every message carries its own copy of the
 * plan, so a request to prepare and the run after it must derive the same engine, key and first clock-reading run.
 */
function pagePlan(request) {
  const plan = request.plan;
  plan.engine = request.engine;
  // Snapshots are of one page's plan: the first request of another page's drops them (the runs' indexes differ).
  plan.key = plan.key || JSON.stringify(plan.runs.map((r) => r.sql || r.reason || ''));
  plan.timed = timedStates(plan);
  if (snapshotsOf !== plan.key) {
    snapshots.clear();
    snapshotsOf = plan.key;
  }
  return plan;
}

async function run(request, progress) {
  const { target, text, exercise } = request;
  const plan = pagePlan(request);
  if (cluster && !snapshots.has(0)) snapshots.set(0, { tarball: cluster, sequences: false });
  // An engine may serve this run when it is still the build's, not past the target, and started from a snapshot
  // this run's text and the replay may start from.
  const fits = (e) => e && e.clean && e.at >= 0 && e.at <= target && usable(plan, e.origin, target, text);
  const current = fits(live) ? live : null;
  // How the state before the snippet was reached, for the benchmark and the tests: the engine as it was, one
  // prepared while the reader read, or one started from a snapshot (the state before run `from`), and what was replayed.
  const startedAt = performance.now();
  let how = current && current.prepared && current.at === target ? { engine: 'prepared', from: current.origin.from }
    : { engine: 'running', from: current ? current.at : null };
  if (!current || current.at < target) {
    if (current) {
      const diverged = await replay(plan, live, target, progress);
      if (diverged) return { diverged };
    } else {
      retire(live);
      live = null;
      const made = await engineAt(plan.engine, plan, target, text, progress);
      live = made.engine;
      how = { engine: 'started', from: live.origin.from };
      if (made.diverged) return { diverged: made.diverged };
    }
  }
  live.prepared = false;
  // Where the time went, for the benchmark: this worker's start (ms since it began: PGlite's code imported, its files
  // fetched and read, compiled, the engine started) and this run's own (bringing the state forward, the run).
  how.ms = { ...timings, ...(how.engine === 'prepared' ? live.preparedMs : {}), came: Math.round(request.came),
    waited: Math.round(startedAt - request.came), state: Math.round(performance.now() - startedAt) };
  db = live.db;
  progress('running');
  const snippet = plan.runs[target];
  const own = exercise || text !== snippet.sql;
  // How the verified statements sort their rows the build decided from the server's parse of each (the rows file says
  // it): nothing is asked here before the reader's statements run.
  // An exercise's cases first, each from the state before the answer and rolled back: the main run may change it.
  const cases = [];
  if (exercise && snippet.cases) {
    progress('cases');
    for (const dataSet of snippet.cases) {
      const ran = await runCase(dataSet, text);
      if (ran.diverged) {
        live.clean = false;
        return { diverged: ran.diverged };
      }
      cases.push(ran);
      if (ran.ended) {
        // The reader's text ended the transaction the case ran in: its data stays, so nothing more is judged on this state.
        live.clean = false;
        return { tables: [], cases, sorted: null };
      }
    }
    progress('running');
  }
  // The catalog is asked for the names of the page's own types only after the reader's own text ran (see typeName).
  askCatalog = own;
  let outcome;
  try {
    outcome = exercise ? await execute(text) : await runAsBuilt(snippet, text);
  } finally {
    askCatalog = false;
  }
  if (cases.length) outcome.cases = cases;
  if (own) {
    live.clean = false;
  } else {
    live.at = target + 1;
  }
  how.ms.run = Math.round(performance.now() - startedAt) - how.ms.state;
  // Whether the reader's own query sorts its rows, asked only after it ran, on this engine, which no run uses again
  // (clean is false): the probe cannot change what the reader's statements did, and costs nothing before their result.
  // Only where the order counts (a snippet whose rows the build compared in order, an exercise) and the text ran clean.
  // A snippet with parameters is probed too: the reader's text ran bound to the build's values, but it may name no
  // parameter at all (literals in their place), and then its ORDER BY is read as any other query's; text that does
  // name $1 cannot make a view, and the server says so (42P02), which is the only case the order is not checked for
  // parameters.
  const last = outcome.tables && outcome.tables[outcome.tables.length - 1];
  let order = own && !outcome.error && (exercise || (snippet.expect && snippet.expect.ordered))
    ? await sorts(text, last ? last.columns.length : 0)
    : { sorted: null, why: null };
  // A key the result does not show (ORDER BY created_at DESC, id DESC over other columns): the order is still the
  // verified one's where the reader's keys begin with every key of the verified query, as the server parsed both
  // (asked on this same engine, which no run uses again). Their order then refines the verified order.
  if (order.sortedBy && snippet.sql) {
    const statements = snippet.statements && snippet.statements.length ? snippet.statements : [snippet.sql];
    const verified = await sorts(statements[statements.length - 1], last.columns.length);
    const by = verified.sortedBy || null;
    if (by && by.length <= order.sortedBy.length && by.every((key, i) => key === order.sortedBy[i])) {
      order = { sorted: true, refines: true };
    }
  }
  how.ms.sorts = Math.round(performance.now() - startedAt) - how.ms.state - how.ms.run;
  // Where this worker's engine is now, for the page, which chooses the worker of the next run (see kensho-run.js).
  return { ...outcome, sorted: order.sorted, sortKeys: order.keys || null, sortEq: order.eq || null, orderRefines: !!order.refines, orderWhy: order.why || null, how,
    after: { at: live.at, clean: live.clean } };
}

/**
 * Runs the reader's text on one of an exercise's data sets as the build ran the model answer on it (ScriptRunner):
 * in a transaction, the data set's statements, then the text; then the transaction is rolled back.
 */
async function runCase(dataSet, text) {
  await execute('BEGIN');
  for (const statement of dataSet.statements) {
    const done = await execute(statement);
    if (done.error) {
      await execute('ROLLBACK');
      return { diverged: { line: dataSet.line, expected: null, error: done.error } };
    }
  }
  const outcome = await execute(text);
  if (outcome.status !== 'T' && outcome.status !== 'E') {
    return { name: dataSet.name, ended: true, tables: [] };
  }
  await execute('ROLLBACK');
  return { name: dataSet.name, tables: outcome.tables, error: outcome.error || null };
}

/**
 * How a query's result is sorted: the server's parse of it as a view, whose rule keeps the query tree, read as the
 * build reads a statement's order (sql-checks SessionOrders.ofQuery): the top query's sortClause, each key's target
 * entry (tleSortGroupRef → ressortgroupref); a constant key sorts nothing, a key that is no result column (resjunk:
 * `ORDER BY (SELECT 1)`, `ORDER BY random() * 0`) leaves the order of the rows shown unknown. The view's columns are
 * named c1…cn, so that a result with two columns of one name still makes a view. The view is made through the extended
 * protocol, which takes one statement only, so nothing of the reader's text runs again.
 * Returns { sorted: true, keys } (result columns, 0-based), { sorted: false } (no ORDER BY, or only constants), or
 * { sorted: null, why } with the words key of the reason the order could not be read.
 *
 * Asked only after the reader's own text ran, on the engine it ran on, which serves no run after it (its state is
 * the reader's now): the view, the transaction ID and the temporary schema it takes can change nothing the reader's
 * statements did or will see. In a transaction their text left open the view is made under a savepoint and undone.
 */
async function sorts(text, columns) {
  if (live && live.clean) throw new Error('the sort probe runs only on an engine no later run uses');
  if (!columns) return { sorted: null, why: 'orderWhyNoRows' };
  const query = text.trim().replace(/;+$/, '');
  let tree = null;
  const inTransaction = db.isInTransaction();
  try {
    await db.exec(inTransaction ? 'SAVEPOINT kensho_order_probe' : 'BEGIN');
  } catch (error) {
    return { sorted: null, why: 'orderWhyAborted' }; // an aborted transaction answers nothing until it ends
  }
  const names = Array.from({ length: columns }, (_, i) => 'c' + (i + 1)).join(', ');
  let parameters = false;
  try {
    await db.query('CREATE TEMP VIEW kensho_order_probe (' + names + ') AS ' + query);
    tree = (await db.query("SELECT ev_action::text FROM pg_catalog.pg_rewrite WHERE ev_class = 'kensho_order_probe'::regclass",
      [], { rowMode: 'array' })).rows[0][0];
  } catch (error) {
    tree = null;
    // "there is no parameter $1": the query names a parameter, which a view cannot hold (its rows are the bound values').
    parameters = !!error && error.code === '42P02';
  } finally {
    await db.exec(inTransaction ? 'ROLLBACK TO SAVEPOINT kensho_order_probe' : 'ROLLBACK').catch(() => {});
  }
  if (tree === null) return { sorted: null, why: parameters ? 'orderWhyParameters' : 'orderWhyNotOneQuery' };
  let parsed;
  try {
    parsed = readNodes(tree);
  } catch (error) {
    return { sorted: null, why: 'orderWhyUnread' };
  }
  const top = Array.isArray(parsed) ? parsed[0] : parsed;
  return orderOfQuery(top, columns);
}

/** The order a parsed query promises, by the rule of SessionOrders.ofQuery (keep the two alike). */
function orderOfQuery(query, columns) {
  const unread = { sorted: null, why: 'orderWhyUnread' };
  if (!query || query.type !== 'QUERY') return unread;
  const list = (v) => (Array.isArray(v) ? v : v === undefined || v === '<>' ? [] : [v]);
  const sortClause = list(query.fields.sortClause);
  if (!sortClause.length) return { sorted: false };
  const columnOf = new Map();
  const constants = new Set();
  let visible = 0;
  for (const entry of list(query.fields.targetList)) {
    if (!entry || entry.type !== 'TARGETENTRY') return unread;
    const junk = entry.fields.resjunk === 'true';
    const column = junk ? -1 : visible++;
    const ref = Number(entry.fields.ressortgroupref || 0);
    if (ref > 0) {
      columnOf.set(ref, column);
      if (entry.fields.expr && entry.fields.expr.type === 'CONST') constants.add(ref);
    }
  }
  if (visible !== columns) return unread;
  const keys = [];
  const eq = []; // each key's equality operator (the sort's eqop): which of its rows may tie (the page's mayTie)
  for (const clause of sortClause) {
    if (!clause || clause.type !== 'SORTGROUPCLAUSE') return unread;
    const ref = Number(clause.fields.tleSortGroupRef || 0);
    if (constants.has(ref)) continue; // a constant sorts nothing: every row ties on it
    const column = columnOf.get(ref);
    if (column === undefined) return unread;
    // A key the result does not show: which rows tie under it cannot be seen, so neither can the order's guarantee.
    if (column < 0) return { sorted: null, why: 'orderWhyHiddenKey', sortedBy: sortedBy(query, sortClause) };
    if (!keys.includes(column)) {
      keys.push(column);
      eq.push(Number(clause.fields.eqop || 0));
    }
  }
  return keys.length ? { sorted: true, keys, eq, sortedBy: sortedBy(query, sortClause) } : { sorted: false, why: 'orderByConstants' };
}

/**
 * What a query sorts by, as the server parsed it: each sort clause's expression (positions in the text left out), its
 * operator and where NULLs go. Two queries over the same tables with the same list sort their rows alike.
 */
function sortedBy(query, sortClause) {
  const entries = new Map();
  const list = (v) => (Array.isArray(v) ? v : v === undefined || v === '<>' ? [] : [v]);
  for (const entry of list(query.fields.targetList)) {
    const ref = Number(entry.fields.ressortgroupref || 0);
    if (ref > 0) entries.set(ref, entry.fields.expr);
  }
  const bare = (node) => JSON.stringify(node, (name, value) => (name === 'location' ? undefined : value));
  return sortClause.map((clause) => bare([entries.get(Number(clause.fields.tleSortGroupRef || 0)),
    clause.fields.sortop, clause.fields.nulls_first]));
}

/**
 * Reads the server's text form of a node tree (nodeToString, as read.c tokenises it): {TYPE :field value …} nodes,
 * ( … ) lists, other tokens as strings (backslash escapes the next character). A field's value is its one item,
 * or the items up to the next field as an array.
 */
function readNodes(text) {
  const tokens = [];
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') { i++; continue; }
    if ('(){}'.includes(c)) { tokens.push({ t: c }); i++; continue; }
    let word = '';
    while (i < text.length && !' \n\t\r(){}'.includes(text[i])) {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      word += text[i++];
    }
    tokens.push({ t: 'w', v: word, field: word.startsWith(':') });
  }
  let at = 0;
  const item = () => {
    const token = tokens[at++];
    if (!token) throw new Error('the tree ended early');
    if (token.t === '{') {
      const node = { type: tokens[at++].v, fields: {} };
      while (tokens[at] && tokens[at].t !== '}') {
        const name = tokens[at++];
        if (!name.field) throw new Error('a field was expected');
        const values = [];
        while (tokens[at] && tokens[at].t !== '}' && !(tokens[at].t === 'w' && tokens[at].field)) values.push(item());
        node.fields[name.v.slice(1)] = values.length === 1 ? values[0] : values;
      }
      at++;
      return node;
    }
    if (token.t === '(') {
      const items = [];
      while (tokens[at] && tokens[at].t !== ')') items.push(item());
      at++;
      return items;
    }
    if (token.t === 'w') return token.v;
    throw new Error('unexpected ' + token.t);
  };
  return item();
}
