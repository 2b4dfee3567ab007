import { PDFDocument } from 'pdf-lib';

/** The most pages Herald sends in one PDF (the API takes 100 per request; a text message rarely needs more). */
export const PDF_MAX_PAGES = 30;
/** The largest PDF Herald sends, whatever MEDIA_MAX_BYTES allows for other files. */
export const PDF_MAX_BYTES = 10 * 1024 * 1024;

/** What Herald found in a PDF before sending it. */
export type PdfInspection =
  | { ok: true; pages: number }
  | { ok: false; problem: 'corrupt' | 'encrypted' | 'too_many_pages'; pages?: number };

/**
 * Opens a PDF to count its pages and see that the API could read it: a corrupt file or a
 * password-protected one (the API refuses encrypted PDFs) is a problem, not an exception.
 */
export async function inspectPdf(bytes: Buffer): Promise<PdfInspection> {
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    return { ok: false, problem: /encrypt/i.test(message) ? 'encrypted' : 'corrupt' };
  }
  const pages = document.getPageCount();
  if (pages === 0) return { ok: false, problem: 'corrupt' };
  if (pages > PDF_MAX_PAGES) return { ok: false, problem: 'too_many_pages', pages };
  return { ok: true, pages };
}
