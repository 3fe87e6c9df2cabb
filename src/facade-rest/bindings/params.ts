/** Reading the contract's path and query parameters, shared by the bindings. */
import type { RecordType, SignatureMethodType } from '../../graph/catalog/generated.js';
import type { RestRequest } from '../operation.js';

export const recordId = ({ params }: RestRequest) => params.agr_id ?? params.id_or_ref ?? '';
export const param = (name: string) => ({ params }: RestRequest) => params[name] ?? '';
export const methodType = ({ params }: RestRequest) => (params.method_type ?? '') as SignatureMethodType;
/** `image_representation=compatibility_data_uri` adds `svg_data_uri` to identicons; never otherwise. */
export const withSvg = ({ query }: RestRequest) => query.image_representation === 'compatibility_data_uri';
/** The notarization routes address executions of notarizations only. */
export const recordTypeOf = (prefix: '' | 'Notarization'): RecordType | null => (prefix === 'Notarization' ? 'notarization' : null);
/** The webhook secret: the platform's secret-token header, else the `secret` query parameter. */
export const webhookSecret = ({ headers, query }: Pick<RestRequest, 'headers' | 'query'>) => {
  const header = headers['x-telegram-bot-api-secret-token'];
  return typeof header === 'string' ? header : typeof query.secret === 'string' ? query.secret : '';
};
/** An optional string of the body, as GraphQL wants it (null when absent). */
export const optional = (input: Record<string, unknown>, key: string) => (input[key] as string | undefined) ?? null;
