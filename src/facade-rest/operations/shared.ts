/** Small mappers shared by the REST operation tables. */
import { snakeKeys } from '../case.js';
import type { RestRequest } from '../operation.js';
import type { SignatureMethodType } from './generated.js';

export const ok = (body: unknown) => ({ status: 200, body: snakeKeys(body) });
export const created = (body: unknown) => ({ status: 201, body: snakeKeys(body) });

export const recordId = ({ params }: RestRequest) => params.agr_id ?? params.id_or_ref ?? '';
export const methodType = ({ params }: RestRequest) => (params.method_type ?? '') as SignatureMethodType;
/** `image_representation=compatibility_data_uri` adds `svg_data_uri` to identicons; never otherwise. */
export const withSvg = ({ query }: RestRequest) => query.image_representation === 'compatibility_data_uri';
/** The webhook secret: the platform's secret-token header, else the `secret` query parameter. */
export const webhookSecret = ({ headers, query }: RestRequest) => {
  const header = headers['x-telegram-bot-api-secret-token'];
  return typeof header === 'string' ? header : typeof query.secret === 'string' ? query.secret : '';
};

