import {
  CreateApiKeyDocument,
  LinkContactPointDocument,
  ListApiKeysDocument,
  ListContactPointsDocument,
  RequestOtpDocument,
  RevokeApiKeyDocument,
  VerifyOtpDocument,
  type CreateApiKeyInput,
  type LinkContactPointInput,
  type RequestOtpInput,
  type VerifyOtpInput,
} from './generated.js';
import type { RestOperation } from '../operation.js';
import { ok, created } from './shared.js';

/** Sign-in codes, sessions, contact points and API keys. */
export const identityOperations: Record<string, RestOperation> = {
  requestOtp: {
    access: 'public',
    run: async ({ input }, graph) => ok((await graph(RequestOtpDocument, { input: input as RequestOtpInput })).requestOtp),
  },
  verifyOtp: {
    access: 'public',
    run: async ({ input }, graph) => ok((await graph(VerifyOtpDocument, { input: input as VerifyOtpInput })).verifyOtp),
  },
  listContactPoints: {
    access: 'authenticated',
    run: async (_, graph) => ok({ contactPoints: (await graph(ListContactPointsDocument, {})).contactPoints }),
  },
  linkContactPoint: {
    access: 'authenticated',
    run: async ({ input }, graph) =>
      ok({ contactPoint: (await graph(LinkContactPointDocument, { input: input as LinkContactPointInput })).linkContactPoint }),
  },
  listApiKeys: {
    access: 'authenticated',
    run: async (_, graph) => ok({ apiKeys: (await graph(ListApiKeysDocument, {})).apiKeys }),
  },
  createApiKey: {
    access: 'authenticated',
    run: async ({ input }, graph) => {
      const { apiKey, key } = (await graph(CreateApiKeyDocument, { input: input as CreateApiKeyInput })).createApiKey;
      return created({ ...apiKey, key });
    },
  },
  revokeApiKey: {
    access: 'authenticated',
    issueLocation: 'path',
    run: async ({ params }, graph) => {
      await graph(RevokeApiKeyDocument, { id: params.key_id ?? '' });
      return { status: 204 };
    },
  },
};
