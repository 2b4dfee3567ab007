import type { FastifyInstance } from 'fastify';
import type { ExportResponse } from '../../data-rights/data-export.js';
import { renderNotice } from '../../pages/page-renderer.js';
import { sendDocument } from './pages.js';

/** What the download route needs. */
export interface DataExportRouteOptions {
  exports: { download(token: string, file: string): Promise<ExportResponse> };
}

const gone = renderNotice('Link not working', 'This download link has expired or is not valid. Text MY DATA for a new one.');

/**
 * `GET /p/<token>/<file>`: MY DATA's downloads (notes.json, contacts.json, contacts.vcf),
 * sent as attachments, never cached. A wrong, expired or erased link gets one answer.
 */
export async function dataExportRoute(app: FastifyInstance, options: DataExportRouteOptions): Promise<void> {
  app.get<{ Params: { token: string; file: string } }>('/p/:token/:file', async (request, reply) => {
    const file = await options.exports.download(request.params.token, request.params.file);
    if (file.status !== 200) return sendDocument(reply, 404, gone);
    return reply
      .code(200)
      .header('content-type', file.contentType)
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .header('x-robots-tag', 'noindex, nofollow')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(file.body);
  });
}
