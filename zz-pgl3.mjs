import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync } from 'node:fs';
const now = () => performance.now();
let t = now();
const mem = await PGlite.create(); await mem.query('select 1'); console.log('mem create', (now()-t)|0);
const dump = await mem.dumpDataDir('gzip');
const dir = mkdtempSync('/tmp/pgd-') + '/d';
t = now(); let d = await PGlite.create(dir, { loadDataDir: dump }); await d.query('select 1'); console.log('dir load', (now()-t)|0);
t = now(); await d.close(); console.log('close', (now()-t)|0);
for (let i=0;i<2;i++){ t = now(); d = await PGlite.create(dir); await d.query('select 1'); console.log('dir reopen', (now()-t)|0); t = now(); await d.close(); console.log('close', (now()-t)|0); }
t = now(); d = await PGlite.create({ loadDataDir: dump }); await d.query('select 1'); console.log('mem load', (now()-t)|0);
