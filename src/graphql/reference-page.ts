import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
} from 'graphql';
import type { Context, Next } from 'koa';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Descriptions are short prose with `code` spans: escaped, then backticks become <code>. */
const prose = (text: string | null | undefined) =>
  text ? escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>') : '';

/** `[Order!]!` with the named type linked to its section (built-in scalars too). */
const typeLink = (type: GraphQLType) => {
  const name = getNamedType(type).name;
  return escapeHtml(String(type)).replace(name, `<a href="#${name}">${name}</a>`);
};

const kindOf = (type: GraphQLNamedType) =>
  isObjectType(type)
    ? 'type'
    : isInputObjectType(type)
      ? 'input'
      : isEnumType(type)
        ? 'enum'
        : isScalarType(type)
          ? 'scalar'
          : isInterfaceType(type)
            ? 'interface'
            : isUnionType(type)
              ? 'union'
              : '';

function argumentList(args: readonly GraphQLArgument[]) {
  if (!args.length) return '';
  const items = args.map(
    (a) =>
      `<li><code>${escapeHtml(a.name)}: ${typeLink(a.type)}</code>` +
      `${a.defaultValue !== undefined ? ` = <code>${escapeHtml(JSON.stringify(a.defaultValue))}</code>` : ''} ` +
      `${prose(a.description)}</li>`,
  );
  return `<ul class="args">${items.join('')}</ul>`;
}

function fieldRows(typeName: string, fields: (GraphQLField<unknown, unknown> | GraphQLInputField)[]) {
  return fields
    .map(
      (f) =>
        `<tr id="${typeName}.${escapeHtml(f.name)}"><td><code>${escapeHtml(f.name)}</code></td>` +
        `<td><code>${typeLink(f.type)}</code></td>` +
        `<td>${prose(f.description)}${'args' in f ? argumentList(f.args) : ''}</td></tr>`,
    )
    .join('');
}

function section(type: GraphQLNamedType) {
  let body = '';
  if (isObjectType(type) || isInputObjectType(type) || isInterfaceType(type)) {
    body =
      `<table><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead>` +
      `<tbody>${fieldRows(type.name, Object.values(type.getFields()))}</tbody></table>`;
  } else if (isEnumType(type)) {
    const rows = type
      .getValues()
      .map((v) => `<tr><td><code>${escapeHtml(v.name)}</code></td><td>${prose(v.description)}</td></tr>`)
      .join('');
    body = `<table><thead><tr><th>Value</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`;
  }
  return (
    `<section id="${type.name}"><h2><span class="kind">${kindOf(type)}</span> ${type.name}</h2>` +
    `<p>${prose(type.description)}</p>${body}</section>`
  );
}

/** The schema as one static page: root types first, then every type A–Z, each field described. */
export function graphqlReferenceHtml(schema: GraphQLSchema): string {
  const roots = [schema.getQueryType(), schema.getMutationType()].filter((t): t is NonNullable<typeof t> => Boolean(t));
  const others = Object.values(schema.getTypeMap())
    .filter((t) => !t.name.startsWith('__') && !roots.includes(t as never))
    .sort((a, b) => a.name.localeCompare(b.name));
  const all = [...roots, ...others];
  const nav = all.map((t) => `<li><a href="#${t.name}">${t.name}</a></li>`).join('');
  return (
    `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Store API · GraphQL reference</title>
  <style>
    body { font: 15px/1.5 system-ui, sans-serif; margin: 0; display: flex; color: #1d2433; }
    nav { width: 16rem; height: 100vh; overflow: auto; position: sticky; top: 0; padding: 1rem; ` +
    `border-right: 1px solid #e3e6ec; box-sizing: border-box; }
    nav ul { list-style: none; padding: 0; margin: 0; } nav a { color: #3b4a6b; text-decoration: ` +
    `none; } nav a:hover { text-decoration: underline; }
    main { flex: 1; padding: 1rem 2rem; max-width: 64rem; }
    section { border-top: 1px solid #e3e6ec; padding-top: .5rem; margin-top: 1.5rem; }
    .kind { color: #8a94a6; font-weight: normal; font-size: .8em; }
    table { border-collapse: collapse; width: 100%; } th, td { text-align: left; vertical-align: ` +
    `top; padding: .3rem .5rem; border-bottom: 1px solid #f0f1f4; }
    code { font: 13px/1.4 ui-monospace, monospace; background: #f5f6f8; padding: 0 .2rem; ` +
    `border-radius: 3px; } .args { margin: .3rem 0 0; padding-left: 1.2rem; }
  </style>
</head>
<body>
  <nav><p><strong>GraphQL reference</strong></p><p><a href="/">Home</a> · <a ` +
    `href="/graphql">GraphiQL</a> · <a href="/docs">REST</a></p><ul>${nav}</ul></nav>
  <main>
    <h1>Store API · GraphQL reference</h1>
    <p>Generated from the schema the service runs (<code>POST /graphql</code>, also as SDL in ` +
    `<code>schema.graphql</code>). Every operation needs <code>Authorization: Bearer ` +
    `&lt;token&gt;</code>; each root field names the scope it needs. Try it in <a ` +
    `href="/graphql">GraphiQL</a>.</p>
    ${all.map(section).join('\n    ')}
  </main>
</body>
</html>`
  );
}

/**
 * `GET /docs/graphql`: the GraphQL reference, public (it holds no data), rendered on its first
 * request and kept: a process that never serves it does not hold it.
 */
export function graphqlReferenceMiddleware(schema: GraphQLSchema) {
  let page: string | undefined;
  return async (ctx: Context, next: Next) => {
    if (
      (ctx.method === 'GET' || ctx.method === 'HEAD') &&
      (ctx.path === '/docs/graphql' || ctx.path === '/docs/graphql/')
    ) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page ??= graphqlReferenceHtml(schema);
      return;
    }
    return next();
  };
}
