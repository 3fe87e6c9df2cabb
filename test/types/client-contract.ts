/**
 * The typed client's contract, checked by `npm run typecheck` (never run): each `@ts-expect-error` line
 * must fail to compile, so types that grew loose fail the typecheck. Each mistake sits next to the same
 * call written right, which must compile, so a line cannot fail for some other reason (a path gone
 * from the contract) and pass unnoticed.
 */
import type { RecordSigningClient, WebhookEvent } from '../../packages/client/src/index.js';

const draft = { body: 'We share the garden equally and take turns watering it every week.', on_chain_full_text: false, on_chain_include_verified_parties: false };

export async function contractTypes(client: RecordSigningClient): Promise<void> {
  const record = await client.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-1' } } });
  // @ts-expect-error a path the contract does not have
  await client.GET('/api/v1/agreement/{agr_id}', { params: { path: { agr_id: 'AGR-1' } } });
  // @ts-expect-error a path parameter the path does not have
  await client.GET('/api/v1/agreements/{agr_id}', { params: { path: { agreement_id: 'AGR-1' } } });
  // @ts-expect-error a method the path does not have
  await client.DELETE('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-1' } } });

  await client.GET('/api/v1/identity/agreements', { params: { query: { limit: 10, status: 'sealed' } } });
  // @ts-expect-error a query parameter the route does not have
  await client.GET('/api/v1/identity/agreements', { params: { query: { limitt: 10, status: 'sealed' } } });
  // @ts-expect-error a query parameter of the wrong type
  await client.GET('/api/v1/identity/agreements', { params: { query: { limit: 'ten', status: 'sealed' } } });
  // @ts-expect-error a status the contract does not list (the service would answer 422)
  await client.GET('/api/v1/identity/agreements', { params: { query: { limit: 10, status: 'finished' } } });

  await client.POST('/api/v1/agreements', { body: { ...draft, title: 'Garden sharing' } });
  // @ts-expect-error a body property the contract does not have (the service would ignore it)
  await client.POST('/api/v1/agreements', { body: { ...draft, titel: 'Garden sharing' } });
  // @ts-expect-error a body property of the wrong type
  await client.POST('/api/v1/agreements', { body: { ...draft, title: 42 } });
  // @ts-expect-error a required body property left out
  await client.POST('/api/v1/agreements', { body: { on_chain_full_text: false, on_chain_include_verified_parties: false } });

  const sealed: typeof record.data.status = 'sealed';
  // @ts-expect-error a record status the contract does not have
  const signed: typeof record.data.status = 'signed';
  const version: number = record.data.current_version;
  // @ts-expect-error a response field the contract does not have
  void record.data.version;
  void [sealed, signed, version];

  // A file is its bytes, or a stream of them; a JSON route cannot be streamed.
  const pdf: Uint8Array = (await client.GET('/api/v1/agreements/{agr_id}/document', { params: { path: { agr_id: 'AGR-1' } } })).data;
  const stream: ReadableStream<Uint8Array> = (await client.stream('/api/v1/agreements/{agr_id}/card.png', { params: { path: { agr_id: 'AGR-1' } } })).data;
  // @ts-expect-error a JSON answer is no stream of bytes
  await client.stream('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-1' } } });
  // @ts-expect-error the throwing methods read the answer themselves
  await client.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-1' } }, parseAs: 'text' });
  void [pdf, stream];

  // A listing iterates its items; only listings page.
  for await (const item of client.paginate('/api/v1/identity/agreements', { params: { query: { status: 'sealed' } } })) {
    const reference: string = item.agr_reference;
    void reference;
  }
  // @ts-expect-error a route that does not page
  client.paginate('/api/v1/api-keys');

  const answer = await client.raw.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-1' } } });
  if (answer.error) {
    // Errors are the contract's too: an ErrorResponse's `detail` is text, a 422's a list of issues.
    const detail: string | { loc: (string | number)[]; msg: string; type: string }[] = answer.error.detail;
    void detail;
  }
  // @ts-expect-error the raw methods keep openapi-fetch's exact-properties checks too
  await client.raw.GET('/api/v1/identity/agreements', { params: { query: { limitt: 10 } } });
}

export function webhookEventTypes(event: WebhookEvent): void {
  // Told apart by `type`: a participant event names the participant, a record event does not.
  if (event.type === 'participant.signed') {
    const role: 'initiator' | 'party' | 'witness' = event.data.participant_role;
    void role;
  }
  if (event.type === 'record.sealed') {
    const status: 'sealed' | 'draft' = event.data.status === 'sealed' ? 'sealed' : 'draft';
    // @ts-expect-error a record event names no participant
    void event.data.participant_id;
    void status;
  }
  // @ts-expect-error an event type the service does not send
  if (event.type === 'record.signed') return;
}
