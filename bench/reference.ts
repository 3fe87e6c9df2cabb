/**
 * The benchmark's yardstick, in its own process: bare express + pg on the service's database.
 * `GET /record/:id` reads the record and its participants in one query; `GET /hello` answers a
 * constant. Answers the parent `{ ready: url }`; stops on `{ stop: true }`.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BENCH_POOL_MAX ?? 10) });
const app = express();
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});
app.get('/record/:id', async (req, res) => {
  const { rows } = await pool.query(
    `select r.*, coalesce((select json_agg(p order by p.position) from participants p where p.record_id = r.id), '[]') as participants
       from records r where r.id = $1`,
    [req.params.id],
  );
  if (rows.length === 0) res.status(404).json({ error: 'not found' });
  else res.json(rows[0]);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.send!({ ready: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('message', (message: { cpu?: boolean; stop?: boolean }) => {
  if (message.cpu) process.send!({ cpu: process.cpuUsage() });
  if (message.stop) server.close(() => void pool.end().then(() => process.exit(0)));
});
