/** Counter-proposals on pending records: propose, read, resolve and withdraw. */
import { catalog } from '../../graph/catalog/index.js';
import type { ResolveCounterInput, SubmitCounterInput } from '../../graph/catalog/generated.js';
import { agrId, body, counterId, json, PROTECTED_ACTION, PROTECTED_READ } from '../openapi/operation.js';
import { bind, route, type RestRequest, type RestRoute } from '../operation.js';
import { param, recordId } from './params.js';
import { AGR, record } from './record-contract.js';

const { lifecycle } = catalog;
const counter = (r: RestRequest) => ({ id: recordId(r), counterId: param('counter_id')(r) });

export function counterProposalRoutes(): RestRoute[] {
  const COUNTER = `${AGR}/counter/{counter_id}`;
  const tags = ['Counter-proposals'];
  return [
    route('post', `${AGR}/counter`, {
      id: 'submitCounter',
      summary: 'Submit a counter-proposal',
      tags,
      description: 'Non-initiator parties only; one active counter-proposal per record (409 `counter_active`).',
      params: [agrId()],
      body: body('SubmitCounterRequest'),
      ok: json('CounterProposalResponse', 201, 'The pending counter-proposal.'),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.submitCounter, { input: (r) => ({ id: recordId(r), input: r.input as SubmitCounterInput }) }),
    }),
    route('get', COUNTER, {
      id: 'getCounter',
      summary: 'Get a counter-proposal',
      tags,
      description: 'Any party of the record may read it.',
      params: [agrId(), counterId()],
      ok: json('CounterProposalResponse', 200, 'The counter-proposal.'),
      errors: PROTECTED_READ,
      runs: bind(lifecycle.getCounter, { input: counter }),
    }),
    route('post', `${COUNTER}/resolve`, {
      id: 'resolveCounter',
      summary: 'Resolve a counter-proposal',
      tags,
      description:
        'Initiator only: accept, partially accept (resolved body required) or reject. An accepted body change ' +
        'increments `current_version` and resets affected signature work.',
      params: [agrId(), counterId()],
      body: body('ResolveCounterRequest'),
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.resolveCounter, { input: (r) => ({ ...counter(r), input: r.input as ResolveCounterInput }) }),
    }),
    route('post', `${COUNTER}/withdraw`, {
      id: 'withdrawCounter',
      summary: 'Withdraw a counter-proposal',
      tags,
      description: 'Proposing party only.',
      params: [agrId(), counterId()],
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.withdrawCounter, { input: counter }),
    }),
  ];
}
