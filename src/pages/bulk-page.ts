import type { BulkPage } from '../tools/bulk-change.js';
import type { PageService } from './page-service.js';

/** A bulk change's page: every item it would change, as a list, for the link in its question. */
export function bulkPage(pages: PageService): BulkPage {
  return async (userId, timezone, title, lines) => {
    const created = await pages.create(userId, timezone, { title, sections: [{ kind: 'list', items: lines }] });
    return created.ok ? created.value.link : undefined;
  };
}
