// The API-change check (docs/operations.md#api-versioning): what `npm test` holds the GraphQL
// schema and the served OpenAPI document to, against the copies of the last release in
// api/last-release/ (written by `npm run api:release`).
// - GraphQL: GraphQL Inspector's core finds the changes; its BREAKING ones count (a removed or
//   renamed field, a changed type, a new required argument or input field, a removed enum value…).
// - OpenAPI: a structural diff of the two documents, below, from the client's side: what a client
//   sends may not be refused now (a new required key or parameter, a narrower type or limit, a
//   removed operation, parameter or body key), what it reads may not be missing or different (a
//   removed key, one no longer always sent, a changed or widened type, a removed status or media
//   type). New operations, optional inputs and new answer keys are not breaking.
// A breaking change passes only when CHANGELOG.md lists it, after the last release's heading, as
// a list item naming it in backticks with its deprecation period: `deprecated YYYY-MM-DD`,
// `sunset YYYY-MM-DD`, at least MIN_DEPRECATION_DAYS apart, the sunset reached.
import { readFile } from 'node:fs/promises';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema, type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { dayOf, MIN_DEPRECATION_DAYS } from '../../src/rest/deprecation.js';

export const LAST_RELEASE = 'api/last-release';

/** One breaking change: `id` is what CHANGELOG.md names it by (`GraphQL Order.email`, `REST Order.email`). */
export interface ApiChange {
  id: string;
  message: string;
}

// ─── GraphQL ────────────────────────────────────────────────────────────────────────────────────

/** The BREAKING changes GraphQL Inspector finds from `before` to `after`. */
export async function graphqlBreakingChanges(before: GraphQLSchema, after: GraphQLSchema): Promise<ApiChange[]> {
  const changes = await diff(before, after);
  return changes
    .filter((change) => change.criticality.level === CriticalityLevel.Breaking)
    .map((change) => ({ id: `GraphQL ${change.path ?? change.type}`, message: change.message }));
}

/** Every deprecated field, argument, input field and enum value of a schema, with its reason. */
export function graphqlDeprecations(schema: GraphQLSchema): { id: string; reason: string | null | undefined }[] {
  const found: { id: string; reason: string | null | undefined }[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (field.deprecationReason != null)
          found.push({ id: `GraphQL ${type.name}.${field.name}`, reason: field.deprecationReason });
        for (const arg of field.args)
          if (arg.deprecationReason != null)
            found.push({ id: `GraphQL ${type.name}.${field.name}.${arg.name}`, reason: arg.deprecationReason });
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        if (field.deprecationReason != null)
          found.push({ id: `GraphQL ${type.name}.${field.name}`, reason: field.deprecationReason });
    } else if (isEnumType(type)) {
      for (const value of type.getValues())
        if (value.deprecationReason != null)
          found.push({ id: `GraphQL ${type.name}.${value.name}`, reason: value.deprecationReason });
    }
  }
  return found;
}

// ─── OpenAPI ────────────────────────────────────────────────────────────────────────────────────

type Json = Record<string, any>;
/** `request`: the client sends it (may not be narrowed); `response`: the client reads it (may not change or widen). */
type Direction = 'request' | 'response';

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

/** The schema a `$ref` names (`#/components/schemas/X`), with the component's name; anything else as it is. */
function resolved(document: Json, schema: Json | undefined): { schema: Json | undefined; component?: string } {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return { schema };
  const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
  if (!match) throw new Error(`unsupported $ref ${ref}`);
  return { schema: document.components?.schemas?.[match[1]], component: match[1] };
}

/** A schema's types as a set: `type` (a string or a list), `const`/`enum` values' types when no type is given. */
function typesOf(schema: Json): Set<string> | null {
  if (schema.type === undefined) return null; // any (or only anyOf alternatives)
  return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
}

/** Whether every type of `inner` is one of `outer` (an integer is a number). */
function within(inner: Set<string>, outer: Set<string>): boolean {
  return [...inner].every((t) => outer.has(t) || (t === 'integer' && outer.has('number')));
}

/** A short name of an `anyOf` alternative, to pair the alternatives of two versions. */
function alternativeKey(schema: Json): string {
  if (typeof schema.$ref === 'string') return schema.$ref;
  const types = typesOf(schema);
  return types ? [...types].sort().join('|') : JSON.stringify(Object.keys(schema).sort());
}

/** A webhook's operation (the POST it is delivered with). */
const post = (item: Json): Json | undefined => item.post ?? Object.values(item)[0];

class OpenApiDiff {
  readonly changes = new Map<string, ApiChange>();
  private readonly seen = new Set<string>();

  constructor(
    private readonly before: Json,
    private readonly after: Json,
  ) {}

  private add(id: string, message: string) {
    const key = `${id}\u0000${message}`;
    if (!this.changes.has(key)) this.changes.set(key, { id, message });
  }

  run(): ApiChange[] {
    const { before, after } = this;
    for (const [path, item] of Object.entries<Json>(before.paths ?? {})) {
      for (const method of METHODS) {
        const old = item[method];
        if (!old) continue;
        const now = after.paths?.[path]?.[method];
        const at = `REST ${method.toUpperCase()} ${path}`;
        if (!now) this.add(at, 'operation removed');
        else this.operation(at, old, now);
      }
    }
    for (const [name, item] of Object.entries<Json>(before.webhooks ?? {})) {
      const now = after.webhooks?.[name];
      const at = `REST webhook ${name}`;
      if (!now) this.add(at, 'webhook removed');
      // A webhook's body is what the client receives.
      else this.content(at, post(item)?.requestBody?.content, post(now)?.requestBody?.content, 'response');
    }
    return [...this.changes.values()];
  }

  private operation(at: string, old: Json, now: Json) {
    const key = (p: Json) => `${p.in} ${p.name}`;
    const nowParams = new Map<string, Json>((now.parameters ?? []).map((p: Json) => [key(p), p]));
    const oldParams = new Map<string, Json>((old.parameters ?? []).map((p: Json) => [key(p), p]));
    for (const [name, param] of oldParams) {
      const next = nowParams.get(name);
      if (!next) {
        this.add(`${at} ${name}`, 'parameter removed');
        continue;
      }
      if (next.required && !param.required) this.add(`${at} ${name}`, 'parameter now required');
      this.schema(`${at} ${name}`, param.schema, next.schema, 'request');
    }
    for (const [name, param] of nowParams)
      if (!oldParams.has(name) && param.required) this.add(`${at} ${name}`, 'new required parameter');
    if (old.requestBody || now.requestBody) {
      if (now.requestBody?.required && !old.requestBody?.required) this.add(`${at} body`, 'request body now required');
      if (old.requestBody && !now.requestBody) this.add(`${at} body`, 'request body no longer taken');
      else this.content(`${at} body`, old.requestBody?.content, now.requestBody?.content, 'request');
    }
    for (const [status, response] of Object.entries<Json>(old.responses ?? {})) {
      const next = now.responses?.[status];
      if (!next) {
        if (/^2/.test(status)) this.add(`${at} ${status}`, 'success status removed');
        continue;
      }
      this.content(`${at} ${status}`, response.content, next.content, 'response');
    }
  }

  private content(at: string, old: Json | undefined, now: Json | undefined, direction: Direction) {
    for (const [type, media] of Object.entries<Json>(old ?? {})) {
      const next = now?.[type];
      if (!next) this.add(`${at} ${type}`, 'media type removed');
      else this.schema(at, media.schema, next.schema, direction);
    }
  }

  /** Compares two schemas; inside a component, changes are named by the component (`REST Order.email`), once. */
  private schema(at: string, oldGiven: Json | undefined, nowGiven: Json | undefined, direction: Direction) {
    const old = resolved(this.before, oldGiven);
    const now = resolved(this.after, nowGiven);
    if (old.component) {
      at = `REST ${old.component}`;
      const visit = `${old.component}>${now.component ?? ''}>${direction}`;
      if (this.seen.has(visit)) return;
      this.seen.add(visit);
    }
    if (!old.schema || !now.schema) {
      if (old.schema && !now.schema) this.add(at, 'schema removed');
      return;
    }
    this.compare(at, old.schema, now.schema, direction);
  }

  private compare(at: string, old: Json, now: Json, direction: Direction) {
    const reading = direction === 'response';
    // Types: what is read may not gain a type (null among them); what is sent may not lose one.
    const oldTypes = typesOf(old);
    const nowTypes = typesOf(now);
    if (oldTypes && nowTypes) {
      if (reading && !within(nowTypes, oldTypes)) this.add(at, `type ${[...oldTypes]} became ${[...nowTypes]}`);
      if (!reading && !within(oldTypes, nowTypes)) this.add(at, `type ${[...oldTypes]} became ${[...nowTypes]}`);
    } else if (oldTypes && !nowTypes && reading && !now.anyOf && !now.$ref) {
      this.add(at, `type ${[...oldTypes]} became any`);
    }
    // Enumerations: a value sent may not be refused. (A new value read is not breaking by the
    // policy, as a new enum value is not in GraphQL: clients keep a default branch.)
    if (!reading && Array.isArray(now.enum)) {
      if (!Array.isArray(old.enum)) this.add(at, 'now limited to an enumeration');
      else {
        const is = new Set(now.enum.map((v: unknown) => JSON.stringify(v)));
        const gone = old.enum.map((v: unknown) => JSON.stringify(v)).filter((v: string) => !is.has(v));
        if (gone.length) this.add(at, `no longer accepts ${gone.join(', ')}`);
      }
    }
    if (old.const !== undefined || now.const !== undefined)
      if (JSON.stringify(old.const) !== JSON.stringify(now.const)) this.add(at, 'constant changed');
    if (old.format !== now.format && old.format !== undefined)
      this.add(at, `format ${old.format} became ${now.format}`);
    if (!reading) this.limits(at, old, now);
    // Objects.
    if (old.properties || now.properties) {
      const oldProps: Json = old.properties ?? {};
      const nowProps: Json = now.properties ?? {};
      const oldRequired = new Set<string>(old.required ?? []);
      const nowRequired = new Set<string>(now.required ?? []);
      for (const [key, schema] of Object.entries<Json>(oldProps)) {
        const next = nowProps[key];
        const keyAt = `${at}.${key}`;
        if (!next) {
          // Read: a key gone. Sent: a key the body no longer takes (refused when nothing else may come).
          if (reading || now.additionalProperties === false) this.add(keyAt, 'key removed');
          continue;
        }
        if (reading && oldRequired.has(key) && !nowRequired.has(key)) this.add(keyAt, 'no longer always sent');
        if (!reading && !oldRequired.has(key) && nowRequired.has(key)) this.add(keyAt, 'now required');
        this.schema(keyAt, schema, next, direction);
      }
      if (!reading) for (const key of nowRequired) if (!(key in oldProps)) this.add(`${at}.${key}`, 'new required key');
    }
    if (!reading && old.additionalProperties !== false && now.additionalProperties === false && old.type === 'object')
      this.add(at, 'no longer takes other keys');
    // Arrays.
    if (old.items || now.items) {
      if (old.items && now.items) this.schema(`${at}[]`, old.items, now.items, direction);
      else if (old.items && reading) this.add(`${at}[]`, 'items changed');
    }
    // Alternatives: paired by their types; one sent may not go, one read may not appear.
    if (old.anyOf || now.anyOf || old.oneOf || now.oneOf) {
      const list = (s: Json): Json[] => s.anyOf ?? s.oneOf ?? [s];
      const oldAlts = new Map(list(old).map((s) => [alternativeKey(s), s]));
      const nowAlts = new Map(list(now).map((s) => [alternativeKey(s), s]));
      for (const [key, schema] of oldAlts) {
        const next = nowAlts.get(key);
        if (next) this.schema(at, schema, next, direction);
        else if (!reading) this.add(at, `no longer accepts ${key}`);
      }
      if (reading) for (const key of nowAlts.keys()) if (!oldAlts.has(key)) this.add(at, `may now be ${key}`);
    }
  }

  /** Limits on what is sent may not narrow. */
  private limits(at: string, old: Json, now: Json) {
    const lowered = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];
    const raised = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
    for (const name of lowered)
      if (now[name] !== undefined && (old[name] === undefined || now[name] < old[name]))
        this.add(at, `${name} ${old[name] ?? 'none'} became ${now[name]}`);
    for (const name of raised)
      if (now[name] !== undefined && (old[name] === undefined || now[name] > old[name]))
        this.add(at, `${name} ${old[name] ?? 'none'} became ${now[name]}`);
    if (now.pattern !== undefined && now.pattern !== old.pattern)
      this.add(at, `pattern ${old.pattern ?? 'none'} became ${now.pattern}`);
  }
}

/** The breaking changes from the OpenAPI document `before` to `after` (not its servers, prose or examples). */
export function openApiBreakingChanges(before: Json, after: Json): ApiChange[] {
  return new OpenApiDiff(before, after).run();
}

/** Every property marked `deprecated` in an OpenAPI document's component schemas. */
export function openApiDeprecations(document: Json): string[] {
  const found: string[] = [];
  const walk = (at: string, schema: Json | undefined) => {
    if (!schema || typeof schema !== 'object') return;
    for (const [key, value] of Object.entries<Json>(schema.properties ?? {})) {
      if (value?.deprecated) found.push(`${at}.${key}`);
      walk(`${at}.${key}`, value);
    }
    if (schema.items) walk(`${at}[]`, schema.items);
    for (const alternative of schema.anyOf ?? schema.oneOf ?? []) walk(at, alternative);
  };
  for (const [name, schema] of Object.entries<Json>(document.components?.schemas ?? {})) walk(`REST ${name}`, schema);
  return found;
}

/** The OpenAPI document as committed for a release: no servers, examples or prose (the contract's structure). */
export function releaseCopy(document: Json): Json {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !['example', 'examples', 'description', 'summary', 'servers'].includes(key))
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return strip(document) as Json;
}

// ─── CHANGELOG.md ───────────────────────────────────────────────────────────────────────────────

export interface ChangelogEntry {
  /** The ids the item names in backticks. */
  ids: string[];
  deprecated?: string;
  sunset?: string;
  line: string;
}

/**
 * The list items of CHANGELOG.md written since `version` (above its `## ` heading; the whole file
 * when it has none), with the ids they name and their deprecation period.
 */
export function changelogEntries(text: string, version?: string): ChangelogEntry[] {
  const lines = text.split('\n');
  const release = version
    ? lines.findIndex((line) => new RegExp(`^## \\[?v?${version.replace(/\./g, '\\.')}\\]?(\\s|$)`).test(line))
    : -1;
  const since = release < 0 ? lines : lines.slice(0, release);
  return since
    .filter((line) => /^\s*[-*] /.test(line))
    .map((line) => ({
      ids: [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
      deprecated: /deprecated (\d{4}-\d{2}-\d{2})/i.exec(line)?.[1],
      sunset: /sunset (\d{4}-\d{2}-\d{2})/i.exec(line)?.[1],
      line,
    }));
}

const DAY_MS = 86_400_000;

/**
 * What keeps `change` from passing, or null: CHANGELOG.md must list it since the last release with
 * a deprecation period of at least MIN_DEPRECATION_DAYS whose sunset has come by `today`.
 */
export function unannounced(change: ApiChange, entries: ChangelogEntry[], today: Date): string | null {
  const listed = entries.filter((entry) => entry.ids.includes(change.id));
  const add =
    `add to CHANGELOG.md under "Unreleased", "Breaking changes": ` +
    `- \`${change.id}\`: ${change.message}; deprecated YYYY-MM-DD, sunset YYYY-MM-DD (at least ` +
    `${MIN_DEPRECATION_DAYS} days later, and passed)`;
  if (!listed.length) return `${change.id}: ${change.message} — not in CHANGELOG.md; ${add}`;
  const periods = listed.filter((entry) => entry.deprecated && entry.sunset);
  if (!periods.length)
    return `${change.id}: ${change.message} — CHANGELOG.md lists it without a deprecation period; ${add}`;
  for (const { deprecated, sunset } of periods) {
    const days = (dayOf(sunset!) - dayOf(deprecated!)) / DAY_MS;
    if (!(days >= MIN_DEPRECATION_DAYS))
      return (
        `${change.id}: deprecated ${deprecated}, sunset ${sunset} is ${days} days, ` +
        `less than the ${MIN_DEPRECATION_DAYS} the policy gives clients`
      );
    if (dayOf(sunset!) > today.getTime())
      return `${change.id}: its sunset ${sunset} has not come yet; clients were told it stays until then`;
  }
  return null;
}

export interface ApiCheck {
  /** The breaking changes found, each with why it fails (null: listed with its period). */
  changes: (ApiChange & { problem: string | null })[];
  /** Deprecated elements whose reason or CHANGELOG.md entry is missing. */
  deprecations: string[];
  failures: string[];
}

/** The last release's copies (api/last-release/). */
export async function lastRelease(): Promise<{ version: string; schema: GraphQLSchema; openapi: Json }> {
  const { version } = JSON.parse(await readFile(`${LAST_RELEASE}/release.json`, 'utf8')) as { version: string };
  const schema = buildSchema(await readFile(`${LAST_RELEASE}/schema.graphql`, 'utf8'));
  const openapi = JSON.parse(await readFile(`${LAST_RELEASE}/openapi.json`, 'utf8')) as Json;
  return { version, schema, openapi };
}

/**
 * The whole check: the current schema and OpenAPI document against the last release's, and their
 * deprecations against CHANGELOG.md. `failures` is empty when the change can ship.
 */
export async function checkApiChanges(options: {
  release: { version: string; schema: GraphQLSchema; openapi: Json };
  schema: GraphQLSchema;
  openapi: Json;
  changelog: string;
  today?: Date;
}): Promise<ApiCheck> {
  const today = options.today ?? new Date();
  const since = changelogEntries(options.changelog, options.release.version);
  const all = changelogEntries(options.changelog);
  const found = [
    ...(await graphqlBreakingChanges(options.release.schema, options.schema)),
    ...openApiBreakingChanges(options.release.openapi, options.openapi),
  ];
  const changes = found.map((change) => ({ ...change, problem: unannounced(change, since, today) }));
  const deprecations: string[] = [];
  const listedWithPeriod = (id: string) => all.some((e) => e.ids.includes(id) && e.deprecated && e.sunset);
  for (const { id, reason } of graphqlDeprecations(options.schema)) {
    if (!reason?.trim() || reason === 'No longer supported')
      deprecations.push(`${id}: @deprecated without a reason (say what to use instead, and the sunset)`);
    if (!listedWithPeriod(id))
      deprecations.push(`${id}: deprecated, but CHANGELOG.md does not list it with its period`);
  }
  for (const id of openApiDeprecations(options.openapi))
    if (!listedWithPeriod(id))
      deprecations.push(`${id}: deprecated, but CHANGELOG.md does not list it with its period`);
  const failures = [...changes.flatMap((c) => (c.problem ? [c.problem] : [])), ...deprecations];
  return { changes, deprecations, failures };
}
