/**
 * The client's method types, over openapi-fetch's, with two changes. A body property or a query
 * parameter the operation does not have is a type error: openapi-fetch infers the whole request options
 * generically, which lets a misspelled optional property through beside a correct one, and the service
 * ignores body properties it does not list, so a typo (`titel`) would be dropped without a word (top-level
 * properties only; nested objects keep openapi-fetch's checks). And the throwing methods answer what the
 * contract says the success is: its JSON, or the bytes of a file (a PDF, an image) as a `Uint8Array`.
 */
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, OkStatus, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi.js';

/** openapi-fetch's (unexported) rule: the options argument is required when something in it is. */
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** `Given` with every property `Expected` lacks typed `never`. */
type Exact<Given, Expected> = Given & { [Key in Exclude<keyof Given, keyof NonNullable<Expected>>]: never };

/** The body and query parameters given, held to the operation's own (whose options may be optional as a whole). */
type ExactInit<Init, Allowed> = (Init extends { body: infer Body } ? (NonNullable<Allowed> extends { body?: infer Expected } ? { body: Exact<Body, Expected> } : unknown) : unknown) &
  (Init extends { params: { query: infer Query } } ? (NonNullable<Allowed> extends { params?: { query?: infer Expected } } ? { params: { query: Exact<Query, Expected> } } : unknown) : unknown);

type Operation<Path extends keyof paths, Method extends HttpMethod> = NonNullable<paths[Path][Method]>;

/** A success answer's data: its JSON, the bytes of any other content, nothing when it has none (a 204). */
type ContentData<Answer> = Answer extends { content: infer Content } ? ('application/json' extends keyof Content ? Content['application/json'] : Uint8Array) : undefined;

/** What a successful call of the operation answers. */
export type DataOf<Op> = Op extends { responses: infer Responses } ? { [Status in keyof Responses & OkStatus]: ContentData<Responses[Status]> }[keyof Responses & OkStatus] : never;

/** A successful call: the contract's data and the response it came in (headers, status). */
export type Success<Data> = { data: Data; response: Response };

/** The options of a call to `Path`, checked as above; the throwing methods read the answer themselves, so no `parseAs`. */
type CallInit<Path extends keyof paths, Method extends HttpMethod, Init> = InitParam<Init & ExactInit<Init, MaybeOptionalInit<paths[Path], Method>> & { parseAs?: never }>;

/** A method that answers the success and throws a `RecordSigningError` for an error answer. */
export type Method<M extends HttpMethod> = <Path extends PathsWithMethod<paths, M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: CallInit<Path, M, Init>
) => Promise<Success<DataOf<Operation<Path, M>>>>;

/** openapi-fetch's own method: `{ data, error, response }`, never throwing for an error answer. */
export type RawMethod<M extends HttpMethod> = <Path extends PathsWithMethod<paths, M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: InitParam<Init & ExactInit<Init, MaybeOptionalInit<paths[Path], M>>>
) => Promise<FetchResponse<NonNullable<paths[Path][M]>, Init, MediaType>>;

type GetPath = PathsWithMethod<paths, 'get'>;

/** The routes that answer a file: the sealed PDF, the cards. */
export type FilePath = { [Path in GetPath]: DataOf<Operation<Path, 'get'>> extends Uint8Array ? Path : never }[GetPath];

/** `stream`: a file's bytes as they arrive, for a file too large to hold whole. */
export type StreamMethod = <Path extends FilePath, Init extends MaybeOptionalInit<paths[Path], 'get'>>(
  url: Path,
  ...init: CallInit<Path, 'get', Init>
) => Promise<Success<ReadableStream<Uint8Array>>>;

type QueryOf<Path extends GetPath> = NonNullable<Operation<Path, 'get'>['parameters']['query']>;

/** The listings that page with `limit` and `offset`. */
export type PagedPath = { [Path in GetPath]: [QueryOf<Path>] extends [never] ? never : 'offset' extends keyof QueryOf<Path> ? Path : never }[GetPath];

/** A page's items: the element type of its one list. */
export type ItemOf<Page> = { [Key in keyof Page]-?: NonNullable<Page[Key]> extends readonly (infer Item)[] ? Item : never }[keyof Page];

/** `paginate`: every item of a listing, page after page. */
export type PaginateMethod = <Path extends PagedPath, Init extends MaybeOptionalInit<paths[Path], 'get'>>(
  url: Path,
  ...init: CallInit<Path, 'get', Init>
) => AsyncIterable<ItemOf<DataOf<Operation<Path, 'get'>>>>;
