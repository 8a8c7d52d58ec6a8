/** Walking a paged list (platform docs 4.7, 4.9) by its `page_info`. */
import { DeveloperApiError } from '../errors.js'
import type { Page } from './types.js'

/**
 * Yields the items of page `first`, then the next, until `page_info` says the last page (its
 * `count` is the number of pages) was read. An empty page ends the walk too, so an answer whose
 * page_info is wrong cannot make it loop for ever.
 */
export async function* pages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  first: number,
): AsyncGenerator<T, void, undefined> {
  for (let page = first; ; page++) {
    const answer = await fetchPage(page)
    const items = answer?.items
    const info = answer?.page_info
    if (!Array.isArray(items) || typeof info?.count !== 'number') {
      throw new DeveloperApiError(
        'invalid_response',
        'a list page must have items (an array) and page_info.count (the number of pages)',
        { status: 200 },
      )
    }
    yield* items
    if (items.length === 0 || page >= info.count) return
  }
}
