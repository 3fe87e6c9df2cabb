import { originOf, redactAttributes, redactEventAttributes, redactName, scrubGraphql, scrubSql, withoutQuery } from '../../src/tracing/redaction.js';

describe('Trace redaction', () => {
  it.each([
    ["select pg_notify('record_changes', '{\"recordId\":\"a\"}'); commit", 'select pg_notify(?, ?); commit'],
    ["update t set body = E'it''s mine', n = 42 where id = $1", 'update t set body = ?, n = ? where id = $1'],
    ['select $$secret text$$, $tag$more$tag$ from x limit 10', 'select ?, ? from x limit ?'],
    ['select "col1", t2.x from "table_2" t2 where a = $12::int4', 'select "col1", t2.x from "table_2" t2 where a = $12::int4'],
  ])('SQL literals are replaced, identifiers and parameters kept: %s', (sql, expected) => {
    expect(scrubSql(sql)).toBe(expected);
  });

  it('GraphQL string literals are replaced', () => {
    expect(scrubGraphql('mutation { verify(code: "123456", note: """long\ntext""") { ok } }')).toBe('mutation { verify(code: "*", note: "*") { ok } }');
  });

  it('query strings go, and an outgoing URL keeps only its origin (RPC keys travel in paths)', () => {
    expect(withoutQuery('/cards/R-1.png?ticket=abc#x')).toBe('/cards/R-1.png');
    // Redemption paths carry their single-use ticket in the path.
    expect(withoutQuery('/api/v1/artifacts/share-card/Zq3x_ticket')).toBe('/api/v1/artifacts/share-card/[redacted]');
    expect(withoutQuery('/api/v1/artifacts/document/Zq3x_ticket?x=1')).toBe('/api/v1/artifacts/document/[redacted]');
    expect(originOf('https://user:pw@mainnet.example.io/v3/KEY?x=1')).toBe('https://mainnet.example.io');
  });

  it('keeps only allowed attributes, scrubbed; headers, user agents, client addresses, users and unknown keys are dropped', () => {
    const kept = redactAttributes(
      {
        'http.request.method': 'GET',
        'url.path': '/oauth/authorize?code=secret',
        'http.target': '/x?ticket=t',
        'url.query': 'ticket=t',
        'http.request.header.authorization': ['Bearer abc'],
        'user_agent.original': 'curl',
        'client.address': '10.0.0.1',
        'db.user': 'root',
        'db.connection_string': 'postgresql://root@127.0.0.1/db',
        'db.query.text': "select * from c where value = 'ann@example.com'",
        'enduser.id': 'ann@example.com',
        'graphql.operation.name': 'RecordView',
        'job.name': 'sealing.make-artifacts',
        'some.new.attribute': 'ann@example.com',
      },
      { client: false },
    );
    expect(kept).toEqual({
      'http.request.method': 'GET',
      'url.path': '/oauth/authorize',
      'http.target': '/x',
      'db.query.text': 'select * from c where value = ?',
      'graphql.operation.name': 'RecordView',
      'job.name': 'sealing.make-artifacts',
    });
    expect(redactAttributes({ 'url.full': 'https://rpc.example.io/v3/KEY', 'url.path': '/v3/KEY' }, { client: true })).toEqual({ 'url.full': 'https://rpc.example.io', 'url.path': '[path]' });
  });

  it('names lose query strings and addresses; events keep only the exception type', () => {
    expect(redactName('GET /x?code=1 for ann@example.com')).toBe('GET /x');
    expect(redactName('notify ann@example.com')).toBe('notify [email]');
    expect(redactEventAttributes({ 'exception.type': 'DomainError', 'exception.message': 'ann@example.com taken', 'exception.stacktrace': '...' })).toEqual({ 'exception.type': 'DomainError' });
  });
});
