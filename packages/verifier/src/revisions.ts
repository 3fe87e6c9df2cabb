import { PdfArray, PdfBool, PdfDict, PdfName, PdfNull, PdfNumber, PdfRef, PdfStream, PdfString, type PDF, type PdfObject } from '@libpdf/core';

/**
 * What may follow the seal. PAdES lets a revision after a signature add validation data and document
 * timestamps, nothing else: a DSS (with its VRI), a document timestamp's signature field (its /V a
 * /DocTimeStamp, an invisible widget) listed in the AcroForm's /Fields and perhaps in its page's
 * /Annots, and the AcroForm's /SigFlags. Everything else a viewer or a tool could read (the catalog,
 * its names trees and embedded files, /OpenAction and /AA, /Info, outlines, form fields, pages and
 * their annotations) must be as the seal signed it.
 *
 * The rule is checked by comparing the document as sealed (the bytes up to the seal's revision) with
 * the whole file, from the trailer through every object either reaches: values, not object numbers,
 * so an object replaced in place and one moved to a new number are alike. Streams compare by their
 * raw bytes and dictionary. The first difference is returned, named by the path from the trailer and
 * the object that holds it; null when only what PAdES allows was added.
 */
export function changeAfterSeal(sealed: PDF, now: PDF): string | null {
  return new RevisionComparison(sealed, now).run();
}

type Side = { value: PdfObject | undefined; object: number | null };
type Task = { a: Side; b: Side; path: string; context: 'catalog' | 'acroform' | 'plain' };

/** Keys of a document timestamp's field (merged with its widget) that a renewal may write. */
const TIMESTAMP_FIELD_KEYS = new Set(['Type', 'Subtype', 'FT', 'T', 'TU', 'V', 'F', 'Ff', 'P', 'Rect', 'AP', 'MK', 'DA']);
/** Keys of a /DocTimeStamp signature dictionary (no /Reference: a timestamp transforms nothing). */
const DOC_TIMESTAMP_KEYS = new Set(['Type', 'Filter', 'SubFilter', 'ByteRange', 'Contents', 'M', 'Name', 'Reason', 'Location', 'ContactInfo', 'Prop_Build', 'V']);
const DSS_KEYS = new Set(['Type', 'Certs', 'OCSPs', 'CRLs', 'VRI']);
const VRI_KEYS = new Set(['Type', 'Cert', 'OCSP', 'CRL', 'TU', 'TS']);
/** Trailer entries that say what the document is; the rest (/Size, /Prev, /ID, the xref stream's own) describe the file's layout. */
const TRAILER_KEYS = ['Root', 'Info', 'Encrypt'] as const;

class RevisionComparison {
  private readonly queue: Task[] = [];
  private readonly seen = new Set<string>();
  /** A page is named by its number ("page 2"), wherever the walk reaches it from. */
  private readonly pageNumbers = new Map<number, number>();

  constructor(
    private readonly sealed: PDF,
    private readonly now: PDF,
  ) {
    now.getPages().forEach((page, i) => {
      const ref = now.context.getRef(page.dict);
      if (ref) this.pageNumbers.set(ref.objectNumber, i + 1);
    });
  }

  run(): string | null {
    const trailerA = this.sealed.context.info.trailer;
    const trailerB = this.now.context.info.trailer;
    for (const key of TRAILER_KEYS) {
      this.queue.push({ a: { value: trailerA.get(key), object: null }, b: { value: trailerB.get(key), object: null }, path: `/${key}`, context: key === 'Root' ? 'catalog' : 'plain' });
    }
    // Breadth first: the difference nearest the trailer is the one reported.
    for (let i = 0; i < this.queue.length; i += 1) {
      const difference = this.compare(this.queue[i]!);
      if (difference) return difference;
    }
    return null;
  }

  private resolve(document: PDF, side: Side): Side {
    if (side.value instanceof PdfRef) return { value: document.getObject(side.value) ?? undefined, object: side.value.objectNumber };
    return side;
  }

  private resolverOf(document: PDF): (ref: PdfRef) => PdfObject | null {
    return (ref) => document.getObject(ref);
  }

  private push(a: PdfObject | undefined, b: PdfObject | undefined, task: Task, path: string, context: Task['context'] = 'plain'): void {
    this.queue.push({ a: { value: a, object: task.a.object }, b: { value: b, object: task.b.object }, path, context });
  }

  private compare(task: Task): string | null {
    if (task.a.value instanceof PdfRef && task.b.value instanceof PdfRef) {
      const pair = `${task.a.value.objectNumber}.${task.a.value.generation}:${task.b.value.objectNumber}.${task.b.value.generation}`;
      if (this.seen.has(pair)) return null;
      this.seen.add(pair);
    }
    const a = this.resolve(this.sealed, task.a);
    const b = this.resolve(this.now, task.b);
    const page = b.object === null ? undefined : this.pageNumbers.get(b.object);
    const path = page !== undefined && b.value instanceof PdfDict && b.value.getName('Type')?.value === 'Page' ? `page ${page}` : task.path;
    const here = { ...task, a, b, path };
    const where = describe(path, b.object ?? a.object);
    const x = a.value instanceof PdfNull ? undefined : a.value;
    const y = b.value instanceof PdfNull ? undefined : b.value;
    if (x === undefined || y === undefined) return x === y ? null : `${where} ${x === undefined ? 'was added' : 'was removed'}`;
    if (x instanceof PdfStream || y instanceof PdfStream) {
      if (!(x instanceof PdfStream && y instanceof PdfStream)) return `${where} changed kind`;
      if (!sameBytes(x.data, y.data)) return `${where} has other stream data`;
      return this.compareDict(x, y, here, where);
    }
    if (x instanceof PdfDict && y instanceof PdfDict) return this.compareDict(x, y, here, where);
    if (x instanceof PdfArray && y instanceof PdfArray) {
      if (x.length !== y.length) return `${where} has ${y.length} items instead of ${x.length}`;
      for (let i = 0; i < x.length; i += 1) this.push(x.at(i), y.at(i), here, `${path}[${i}]`);
      return null;
    }
    if (x instanceof PdfName && y instanceof PdfName) return x.value === y.value ? null : `${where} changed from /${x.value} to /${y.value}`;
    if ((x instanceof PdfNumber && y instanceof PdfNumber) || (x instanceof PdfBool && y instanceof PdfBool)) return x.value === y.value ? null : `${where} changed from ${x.value} to ${y.value}`;
    if (x instanceof PdfString && y instanceof PdfString) return sameBytes(x.bytes, y.bytes) ? null : `${where} changed`;
    return `${where} changed kind`;
  }

  private compareDict(x: PdfDict, y: PdfDict, task: Task, where: string): string | null {
    const isPage = x.getName('Type')?.value === 'Page';
    const keys = new Set([...[...x.keys()].map((k) => k.value), ...[...y.keys()].map((k) => k.value)]);
    for (const key of [...keys].sort()) {
      const path = `${task.path} /${key}`;
      const a = x.get(key);
      const b = y.get(key);
      if (task.context === 'catalog' && key === 'DSS') {
        const problem = this.checkDss(b, path, task.b.object);
        if (problem) return problem;
        continue;
      }
      if (task.context === 'catalog' && key === 'AcroForm') {
        this.push(a, b, task, path, 'acroform');
        continue;
      }
      if (task.context === 'acroform' && key === 'SigFlags') {
        const flags = b instanceof PdfRef ? this.now.getObject(b) : b;
        if (b !== undefined && !(flags instanceof PdfNumber)) return `${describe(path, task.b.object)} is not a number`;
        continue;
      }
      if ((task.context === 'acroform' && key === 'Fields') || (isPage && key === 'Annots')) {
        const problem = this.compareWithAddedTimestamps(a, b, task, path);
        if (problem) return problem;
        continue;
      }
      if (a === undefined && b !== undefined) return `${where} gains /${key}`;
      if (b === undefined && a !== undefined) return `${where} loses /${key}`;
      this.push(a, b, task, path);
    }
    return null;
  }

  /**
   * An array that may gain document timestamp fields (the AcroForm's /Fields, a page's /Annots): the
   * sealed items, in order, then only added timestamp fields.
   */
  private compareWithAddedTimestamps(a: PdfObject | undefined, b: PdfObject | undefined, task: Task, path: string): string | null {
    const sealedItems = a === undefined ? [] : this.items(this.sealed, a);
    const nowItems = b === undefined ? [] : this.items(this.now, b);
    const where = describe(path, objectOf(b) ?? task.b.object);
    if (sealedItems === null || nowItems === null) return `${where} is not an array`;
    if (nowItems.length < sealedItems.length) return `${where} lost ${sealedItems.length - nowItems.length} of its items`;
    sealedItems.forEach((item, i) => this.push(item, nowItems[i], task, `${path}[${i}]`));
    for (let i = sealedItems.length; i < nowItems.length; i += 1) {
      const problem = this.checkTimestampField(nowItems[i]!, `${path}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }

  private items(document: PDF, value: PdfObject): PdfObject[] | null {
    const array = value instanceof PdfRef ? document.getObject(value) : value;
    if (!(array instanceof PdfArray)) return null;
    return Array.from({ length: array.length }, (_, i) => array.at(i)!);
  }

  /** An added item of /Fields or /Annots: a document timestamp's field and invisible widget, and nothing a viewer acts on. */
  private checkTimestampField(item: PdfObject, path: string): string | null {
    const resolve = this.resolverOf(this.now);
    const field = item instanceof PdfRef ? this.now.getObject(item) : item;
    const where = describe(path, objectOf(item));
    if (!(field instanceof PdfDict) || field instanceof PdfStream) return `${where} was added and is not a document timestamp's field`;
    const value = field.getDict('V', resolve);
    if (field.getName('FT', resolve)?.value !== 'Sig' || value?.getName('Type', resolve)?.value !== 'DocTimeStamp') return `${where} was added and is not a document timestamp's field`;
    const extra = [...field.keys()].map((k) => k.value).find((k) => !TIMESTAMP_FIELD_KEYS.has(k));
    if (extra) return `${where} (a document timestamp's field) carries /${extra}`;
    const rect = field.getArray('Rect', resolve);
    const corners = rect ? Array.from({ length: rect.length }, (_, i) => rect.at(i, resolve)).map((n) => (n instanceof PdfNumber ? n.value : NaN)) : [];
    if (corners.length !== 4 || corners.some(Number.isNaN) || (corners[0] !== corners[2] && corners[1] !== corners[3])) {
      return `${where} (a document timestamp's widget) is visible on the page (its /Rect has an area)`;
    }
    const valueWhere = describe(`${path} /V`, objectOf(field.get('V')));
    if (value.getName('SubFilter', resolve)?.value !== 'ETSI.RFC3161') return `${valueWhere} (a document timestamp) is not ETSI.RFC3161`;
    const extraValue = [...value.keys()].map((k) => k.value).find((k) => !DOC_TIMESTAMP_KEYS.has(k));
    if (extraValue) return `${valueWhere} (a document timestamp) carries /${extraValue}`;
    return null;
  }

  /** The catalog's /DSS: certificates, OCSP answers and CRLs as streams, and the VRI that indexes them. */
  private checkDss(value: PdfObject | undefined, path: string, catalog: number | null): string | null {
    if (value === undefined) return null;
    const resolve = this.resolverOf(this.now);
    const dss = value instanceof PdfRef ? this.now.getObject(value) : value;
    const where = describe(path, objectOf(value) ?? catalog);
    if (!(dss instanceof PdfDict) || dss instanceof PdfStream) return `${where} is not a DSS dictionary`;
    const streamsOnly = (array: PdfArray | undefined, name: string): string | null => {
      if (!array) return null;
      for (let i = 0; i < array.length; i += 1) if (!(array.at(i, resolve) instanceof PdfStream)) return `${name}[${i}] is not a stream`;
      return null;
    };
    for (const key of dss.keys()) {
      if (!DSS_KEYS.has(key.value)) return `${where} carries /${key.value}, which a DSS has not`;
      if (key.value !== 'VRI' && key.value !== 'Type') {
        const problem = streamsOnly(dss.getArray(key.value, resolve), `${where} /${key.value}`);
        if (problem) return problem;
      }
    }
    const vri = dss.getDict('VRI', resolve);
    for (const [name, entry] of vri ?? []) {
      const item = entry instanceof PdfRef ? this.now.getObject(entry) : entry;
      if (!(item instanceof PdfDict)) return `${where} /VRI /${name.value} is not a dictionary`;
      for (const key of item.keys()) {
        if (!VRI_KEYS.has(key.value)) return `${where} /VRI /${name.value} carries /${key.value}, which a VRI entry has not`;
        if (key.value === 'Cert' || key.value === 'OCSP' || key.value === 'CRL') {
          const problem = streamsOnly(item.getArray(key.value, resolve), `${where} /VRI /${name.value} /${key.value}`);
          if (problem) return problem;
        }
      }
    }
    return null;
  }
}

const objectOf = (value: PdfObject | undefined): number | null => (value instanceof PdfRef ? value.objectNumber : null);
const describe = (path: string, object: number | null): string => `${path}${object === null ? '' : ` (object ${object})`}`;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
