/**
 * The client's typed methods: openapi-fetch's own, except that a body property or a query parameter
 * the operation does not have is a type error. openapi-fetch infers the whole request options
 * generically, which lets a misspelled optional property through beside a correct one, and the service
 * ignores body properties it does not list: a typo (`titel`) would be dropped without a word. Top-level
 * properties only; nested objects keep openapi-fetch's checks (required properties and types).
 */
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';

/** openapi-fetch's (unexported) rule: the options argument is required when something in it is. */
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** `Given` with every property `Expected` lacks typed `never`. */
type Exact<Given, Expected> = Given & { [Key in Exclude<keyof Given, keyof NonNullable<Expected>>]: never };

/** The body and query parameters given, held to the operation's own (whose options may be optional as a whole). */
type ExactInit<Init, Allowed> = (Init extends { body: infer Body } ? (NonNullable<Allowed> extends { body?: infer Expected } ? { body: Exact<Body, Expected> } : unknown) : unknown) &
  (Init extends { params: { query: infer Query } } ? (NonNullable<Allowed> extends { params?: { query?: infer Expected } } ? { params: { query: Exact<Query, Expected> } } : unknown) : unknown);

export type TypedMethod<Method extends HttpMethod> = <Path extends PathsWithMethod<paths, Method>, Init extends MaybeOptionalInit<paths[Path], Method>>(
  url: Path,
  ...init: InitParam<Init & ExactInit<Init, MaybeOptionalInit<paths[Path], Method>>>
) => Promise<FetchResponse<NonNullable<paths[Path][Method]>, Init, MediaType>>;
