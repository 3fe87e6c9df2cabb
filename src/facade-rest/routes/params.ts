/** Reading the contract's path and query parameters, shared by the route modules. */
import type { RestRequest } from '../operation.js';

export const recordId = ({ params }: RestRequest) => params.agr_id ?? params.id_or_ref ?? '';
export const param = (name: string) => ({ params }: RestRequest) => params[name] ?? '';
/** `image_representation=compatibility_data_uri` adds `svg_data_uri` to identicons; never otherwise. */
export const withSvg = ({ query }: RestRequest) => query.image_representation === 'compatibility_data_uri';
/** The webhook secret: the platform's secret-token header, else the `secret` query parameter. */
export const webhookSecret = ({ headers, query }: Pick<RestRequest, 'headers' | 'query'>) => {
  const header = headers['x-telegram-bot-api-secret-token'];
  return typeof header === 'string' ? header : typeof query.secret === 'string' ? query.secret : '';
};
/** An optional string of the body, as GraphQL wants it (null when absent). */
export const optional = (input: Record<string, unknown>, key: string) => (input[key] as string | undefined) ?? null;
