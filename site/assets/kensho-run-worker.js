// The reader's PostgreSQL: PGlite (PostgreSQL 18.6 in WebAssembly) in a Web Worker, so that the page stays
// responsive while it starts and runs. It replays a page's snippets as the build ran them (the run plan:
// run order, statements as the build split them, parameters bound as the build bound them) and returns what
// each statement gave: rows as the text the server sent, or the error with its SQLSTATE.
let PGlite = null;
let db = null;
/** Index in the plan's runs of the last snippet replayed as the build ran it; -1 before any. */
let position = -1;
/** False once the reader ran SQL of their own: the database no longer is the build's, so the next run starts anew. */
let clean = true;
const typeNames = new Map();
/** Rows of one result sent back to the page, as the build keeps at most 1,000 of a result (SqlExecution.ROWS_KEPT). */
const ROWS_SHOWN = 1000;

self.onmessage = async (event) => {
  const { id, request } = event.data;
  try {
    self.postMessage({ id, ok: true, result: await handle(request) });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String((error && error.message) || error) });
  }
};

async function handle(request) {
  if (request.type === 'version') {
    await start(request.engine);
    return (await db.query('SELECT version()', [], { rowMode: 'array' })).rows[0][0];
  }
  return run(request);
}

async function start(engine) {
  if (!PGlite) {
    ({ PGlite } = await import(engine + 'index.js'));
  }
  if (db) {
    await db.close();
  }
  db = await PGlite.create();
  // Values as the server sent them, as psql prints them: no conversion to JavaScript numbers or dates.
  db.parsers = new Proxy({}, { get: () => (text) => text });
  position = -1;
  clean = true;
}

async function typeName(oid) {
  if (!typeNames.has(oid)) {
    const found = await db.query('SELECT oid::text, typname FROM pg_catalog.pg_type', [], { rowMode: 'array' });
    for (const [o, name] of found.rows) typeNames.set(Number(o), name);
  }
  return typeNames.get(oid) || String(oid);
}

/** Runs one statement (or, for text the reader changed, the whole text as one request) and says what it gave. */
async function execute(sql) {
  try {
    const results = await db.exec(sql, { rowMode: 'array' });
    const tables = [];
    for (const r of results) {
      if (r.fields.length > 0) {
        const types = [];
        for (const f of r.fields) types.push(await typeName(f.dataTypeID));
        // What a page shows is bounded: the first rows, and how many there were in all.
        tables.push({ columns: r.fields.map((f) => f.name), types, rows: r.rows.slice(0, ROWS_SHOWN), total: r.rows.length });
      }
    }
    return { tables };
  } catch (error) {
    if (error && error.code) {
      return { tables: [], error: { sqlstate: error.code, message: error.message, detail: error.detail || null } };
    }
    throw error;
  }
}

/** Runs a snippet of the plan as the build ran it: statement by statement, the last one bound when it has parameters. */
async function runAsBuilt(snippet, text) {
  const statements = text === snippet.sql ? snippet.statements : null;
  const tables = [];
  if (snippet.binding) {
    const source = statements ? statements[0] : text;
    let outcome = await execute(snippet.binding.prefix + source);
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
 * Brings the database to the state the build had just before run `target`, then runs `text` there:
 * the snippet's own text (verified) or the reader's. A replayed snippet that does not end as the build's did
 * is reported, so that the page never compares a run made from another state.
 */
async function run({ engine, plan, target, text, exercise }) {
  if (!db || !clean || position >= target) {
    await start(engine);
  }
  for (let i = position + 1; i < target; i++) {
    const earlier = plan.runs[i];
    const outcome = await runAsBuilt(earlier, earlier.sql);
    position = i;
    const expectedError = earlier.expect && earlier.expect.error;
    const got = outcome.error ? outcome.error.sqlstate : null;
    if ((expectedError || null) !== got) {
      clean = false;
      return { diverged: { line: earlier.line, message: outcome.error ? outcome.error.message + ' (SQLSTATE ' + got + ')'
        : 'no error, where the build saw SQLSTATE ' + expectedError } };
    }
  }
  const snippet = plan.runs[target];
  const own = exercise || text !== snippet.sql;
  const outcome = exercise ? await execute(text) : await runAsBuilt(snippet, text);
  if (own) {
    clean = false;
  } else {
    position = target;
  }
  return outcome;
}
