// The reader's PostgreSQL: PGlite (PostgreSQL 18.6 in WebAssembly) in a Web Worker, so that the page stays
// responsive while it starts and runs. It replays a page's snippets as the build ran them (the run plan:
// run order, statements as the build split them, parameters bound as the build bound them) and returns what
// each statement gave: rows as the text the server sent, or the error with its SQLSTATE.
let PGlite = null;
/** PGlite's protocol messages and result parser: a request's results before an error are kept, as psql shows them. */
let protocol = null;
let parse = null;
let db = null;
/** Index in the plan's runs of the last snippet replayed as the build ran it; -1 before any. */
let position = -1;
/** False once the reader ran SQL of their own: the database no longer is the build's, so the next run starts anew. */
let clean = true;
const typeNames = new Map();
/** Rows of one result sent back to the page, as the build keeps at most 1,000 of a result (SqlExecution.ROWS_KEPT). */
const ROWS_SHOWN = 1000;

// One request at a time, in the order they came: a run must never find the database closed or half replayed.
let queue = Promise.resolve();
self.onmessage = (event) => {
  const { id, request } = event.data;
  queue = queue.then(async () => {
    try {
      self.postMessage({ id, ok: true, result: await handle(request, (progress) => self.postMessage({ id, progress })) });
    } catch (error) {
      self.postMessage({ id, ok: false, error: String((error && error.message) || error) });
    }
  });
};

async function handle(request, progress) {
  if (request.type === 'version') {
    if (!db) await start(request.engine);
    return (await db.query('SELECT version()', [], { rowMode: 'array' })).rows[0][0];
  }
  return run(request, progress);
}

async function start(engine) {
  if (!PGlite) {
    ({ PGlite, protocol, parse } = await import(engine + 'index.js'));
  }
  if (db) {
    await db.close();
  }
  db = await PGlite.create();
  // Values as the server sent them, as psql prints them: no conversion to JavaScript numbers or dates.
  db.parsers = new Proxy({}, { get: () => (text) => text });
  // The build runs a page as a role that owns its database and is no superuser and bypasses no row security;
  // so does the browser, or row security, privileges and current_user would answer otherwise than they did.
  await db.exec("CREATE ROLE kensho_reader NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;"
    + " DO $$ BEGIN EXECUTE format('ALTER DATABASE %I OWNER TO kensho_reader', current_database()); END $$;"
    + " SET SESSION AUTHORIZATION kensho_reader;");
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
 * The reader's own text for a snippet with parameters: one statement, bound to the same values as the build's
 * (the extended protocol refuses a second statement before anything runs).
 */
async function executeBound(binding, text) {
  try {
    const types = [];
    for (const p of binding.parameters) {
      types.push(Number((await db.query('SELECT pg_catalog.to_regtype($1)::oid', [p.type], { rowMode: 'array' })).rows[0][0]));
    }
    const result = await db.query(text, binding.parameters.map((p) => p.value), { rowMode: 'array', paramTypes: types });
    return { tables: await tablesOf([result]) };
  } catch (error) {
    if (error && error.code) return { tables: [], error: { sqlstate: error.code, message: error.message } };
    throw error;
  }
}

/** Runs a snippet of the plan as the build ran it: statement by statement, the last one bound when it has parameters. */
async function runAsBuilt(snippet, text) {
  const statements = text === snippet.sql ? snippet.statements : null;
  const tables = [];
  if (snippet.binding) {
    if (!statements) return executeBound(snippet.binding, text);
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
 * Brings the database to the state the build had just before run `target`, then runs `text` there:
 * the snippet's own text (verified) or the reader's. A replayed snippet that does not end as the build's did
 * is reported, so that the page never compares a run made from another state.
 */
async function run({ engine, plan, target, text, exercise }, progress) {
  if (!db || !clean || position >= target) {
    await start(engine);
  }
  if (position + 1 < target) progress('replaying');
  for (let i = position + 1; i < target; i++) {
    const earlier = plan.runs[i];
    const outcome = await runAsBuilt(earlier, earlier.sql);
    position = i;
    const expectedError = (earlier.expect && earlier.expect.error) || null;
    const got = outcome.error ? outcome.error.sqlstate : null;
    if (expectedError !== got) {
      clean = false;
      return { diverged: { line: earlier.line, expected: expectedError, error: outcome.error || null } };
    }
  }
  progress('running');
  const snippet = plan.runs[target];
  const own = exercise || text !== snippet.sql;
  // Whether the reader's own query sorts its rows, as the server parses it (asked before it runs, and rolled back).
  const sorted = own ? await sorts(text) : null;
  // And whether each of the verified statements does, for the results the build showed but did not compare:
  // sorted rows are compared in order there too.
  const verifiedSorts = [];
  for (const statement of snippet.statements || []) verifiedSorts.push(await sorts(statement));
  // An exercise's cases first, each from the state before the answer and rolled back: the main run may change it.
  const cases = [];
  if (exercise && snippet.cases) {
    progress('cases');
    for (const dataSet of snippet.cases) {
      const ran = await runCase(dataSet, text);
      if (ran.diverged) {
        clean = false;
        return { diverged: ran.diverged };
      }
      cases.push(ran);
      if (ran.ended) {
        // The reader's text ended the transaction the case ran in: its data stays, so nothing more is judged on this state.
        clean = false;
        return { tables: [], cases, sorted, verifiedSorts };
      }
    }
    progress('running');
  }
  const outcome = exercise ? await execute(text) : await runAsBuilt(snippet, text);
  if (cases.length) outcome.cases = cases;
  if (own) {
    clean = false;
  } else {
    position = target;
  }
  return { ...outcome, sorted, verifiedSorts };
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
 * Whether a query's result is sorted: the server's parse of it as a view, whose rule keeps the query tree; the
 * top query's sortClause (at brace depth 1 of the tree's text; nested queries lie deeper) says so. The view is
 * made in a transaction that is rolled back, through the extended protocol, which takes one statement only, so
 * nothing of the reader's text runs here. Null when the server cannot make a view of it (not a query).
 */
async function sorts(text) {
  const query = text.trim().replace(/;+$/, '');
  let tree = null;
  // Inside a transaction the page left open, a savepoint keeps it as it was; outside one, a transaction of its own.
  let inBlock = true;
  try {
    await db.exec('SAVEPOINT kensho_order_probe');
  } catch (error) {
    if (error && error.code === '25P02') return null; // an aborted transaction answers nothing until it ends
    inBlock = false;
    try {
      await db.exec('BEGIN');
    } catch (again) {
      return null;
    }
  }
  try {
    await db.query('CREATE TEMP VIEW kensho_order_probe AS ' + query);
    tree = (await db.query("SELECT ev_action::text FROM pg_catalog.pg_rewrite WHERE ev_class = 'kensho_order_probe'::regclass",
      [], { rowMode: 'array' })).rows[0][0];
  } catch (error) {
    tree = null;
  } finally {
    await db.exec(inBlock ? 'ROLLBACK TO SAVEPOINT kensho_order_probe; RELEASE SAVEPOINT kensho_order_probe' : 'ROLLBACK');
  }
  if (tree === null) return null;
  let depth = 0;
  for (let i = 0; i < tree.length; i++) {
    const c = tree[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (depth === 1 && tree.startsWith(':sortClause ', i)) return tree[i + 12] === '(';
  }
  return null;
}
