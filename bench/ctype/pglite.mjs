// The same rows from PGlite (the playground's engine), as `psql -At -F '|'` prints them on the build's server.
// usage: node bench/ctype/pglite.mjs PGLITE_DIST_DIR > pglite.txt   (e.g. target/site/assets/pglite/0.5.16/, or the dist/ of
// `npm i @electric-sql/pglite@0.5.16`); then python3 bench/ctype/encode.py pglite.txt makes the resource sql-checks ships.
import fs from 'fs';
import path from 'path';
const dist = path.resolve(process.argv[2]) + '/';
const { PGlite } = await import(dist + 'index.js');
// The query Kensho itself asks the build's server (CharacterTypeQuery): one source for both sides.
const query = fs.readFileSync(new URL('../../sql-checks/src/main/resources/dev/kensho/sqlchecks/execution/ctype/codepoints.sql', import.meta.url), 'utf8');
const db = await PGlite.create();
const flag = (v) => (v ? 't' : 'f');
for (let first = 1; first <= 1114111; first += 65536) {
  const last = Math.min(first + 65535, 1114111);
  const r = await db.query(query.replaceAll('CODEPOINTS', `generate_series(${first}, ${last})`), [], { rowMode: 'array' });
  const lines = r.rows.map((row) => row.map((v, i) => (i === 0 ? v : typeof v === 'boolean' ? flag(v) : v ?? '')).join('|'));
  process.stdout.write(lines.join('\n') + '\n');
}
await db.close();
