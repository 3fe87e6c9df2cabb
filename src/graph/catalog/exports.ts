import { entry } from './entry.js';
import { CreateExportDocument, GetRecordExportDocument, IssueExportDownloadDocument, ListRecordExportsDocument } from './generated.js';

/** Bulk exports of sealed records and their single-use download links. */
export const exports = {
  create: entry('exports.create', CreateExportDocument, (data) => data.createExport),
  get: entry('exports.get', GetRecordExportDocument, (data) => data.recordExport),
  list: entry('exports.list', ListRecordExportsDocument, (data) => data.recordExports),
  issueDownload: entry('exports.issueDownload', IssueExportDownloadDocument, (data) => data.issueExportDownload),
};
