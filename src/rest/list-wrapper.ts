/**
 * The spec's list wrapper (`items`, `_links`, `_meta`) and the same facts as headers
 * (`X-Pagination-*` and an RFC 8288 `Link`), with absolute URLs that keep the request's other
 * query parameters.
 */
export interface PageFacts {
  page: number;
  size: number;
  totalCount: number;
}

export function pageCountOf({ size, totalCount }: PageFacts): number {
  return Math.ceil(totalCount / size);
}

/**
 * Each link keeps the request's other query parameters, as they came (docs/decisions.md: every
 * link "keeping the request's other query parameters"), with its own `page`. They are bounded
 * (4096 characters, 64 parameters) and written again percent-encoded, so a link carries no raw
 * character of the request into a header.
 */
export function pageLinks(baseUrl: string, querystring: string, facts: PageFacts): Record<string, { href: string }> {
  const pageCount = pageCountOf(facts);
  const last = Math.max(pageCount, 1);
  const href = (page: number) => {
    const params = new URLSearchParams(querystring);
    params.set('page', String(page));
    return { href: `${baseUrl}?${params.toString()}` };
  };
  const links: Record<string, { href: string }> = { self: href(facts.page), first: href(1), last: href(last) };
  if (facts.page - 1 >= 1 && facts.page - 1 <= last) links.prev = href(facts.page - 1);
  if (facts.page + 1 <= pageCount) links.next = href(facts.page + 1);
  return links;
}

export function paginationHeaders(links: Record<string, { href: string }>, facts: PageFacts): Record<string, string> {
  return {
    'X-Pagination-Total-Count': String(facts.totalCount),
    'X-Pagination-Page-Count': String(pageCountOf(facts)),
    'X-Pagination-Current-Page': String(facts.page),
    'X-Pagination-Per-Page': String(facts.size),
    Link: Object.entries(links)
      .map(([rel, { href }]) => `<${href}>; rel="${rel}"`)
      .join(', '),
  };
}

export function listWrapper(items: unknown[], links: Record<string, { href: string }>, facts: PageFacts) {
  return {
    items,
    _links: links,
    _meta: {
      totalCount: facts.totalCount,
      perPage: facts.size,
      currentPage: facts.page,
      pageCount: pageCountOf(facts),
    },
  };
}
export interface ListPage {
  body: ReturnType<typeof listWrapper>;
  headers: Record<string, string>;
}

/** A list response: the wrapper body and the pagination headers, from one set of facts. */
export function listPage(items: unknown[], facts: PageFacts, baseUrl: string, querystring: string): ListPage {
  const links = pageLinks(baseUrl, querystring, facts);
  return { body: listWrapper(items, links, facts), headers: paginationHeaders(links, facts) };
}

/** What a page of a cursor feed is: read after `after`, continued after `next`. */
export interface FeedFacts {
  after: number | null;
  next: number | null;
  size: number;
  /** Records after the cursor now, this page's included. */
  totalCount: number;
}

/**
 * A page of a cursor feed in the list wrapper: `self`, `first` (from the oldest record kept) and
 * `next` (after the last record of this page, or the same cursor when the page is empty: poll it);
 * no `last` or `prev`, which a cursor cannot name. `_meta` counts what follows the cursor now, as
 * if this were its first page.
 */
export function feedPage(items: unknown[], facts: FeedFacts, baseUrl: string, querystring: string): ListPage {
  const href = (after: number | null) => {
    // The request's other parameters kept, as a list's links keep them; `after` is the link's own.
    const params = new URLSearchParams(querystring);
    params.delete('after');
    if (after !== null) params.set('after', String(after));
    const query = params.toString();
    return { href: query ? `${baseUrl}?${query}` : baseUrl };
  };
  const links = { self: href(facts.after), first: href(null), next: href(facts.next) };
  const pageFacts = { page: 1, size: facts.size, totalCount: facts.totalCount };
  return { body: listWrapper(items, links, pageFacts), headers: paginationHeaders(links, pageFacts) };
}
