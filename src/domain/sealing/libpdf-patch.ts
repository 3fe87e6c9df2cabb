import type { PDF } from '@libpdf/core';

/** DocMDP permissions of a certification signature: 1 no change, 2 form filling and signing, 3 also annotations. */
export type CertificationPermissions = 1 | 2 | 3;

/**
 * @libpdf/core 0.4 signs approval signatures only: its `sign()` builds the signature dictionary itself
 * and offers no DocMDP. The seal must certify the document (ISO 32000 12.8.2.2), so that a viewer
 * warns of any change after it: the next signature dictionary the document registers (the one
 * `sign()` makes, /Type /Sig) is given a /Reference to the DocMDP transform with these permissions,
 * and the catalog a /Perms /DocMDP pointing at it, both written in the signature's own revision.
 * The registry's `register` is restored as soon as that dictionary has passed. A version of the
 * library that builds the dictionary differently fails test/integration/post-seal-changes.test.ts
 * (the sealed PDF's certification permissions).
 */
export async function certifyNextSignature(document: PDF, permissions: CertificationPermissions): Promise<void> {
  const { PdfArray, PdfDict, PdfName, PdfNumber } = await import('@libpdf/core');
  const registry = document.context.registry;
  const register = registry.register.bind(registry);
  registry.register = (object) => {
    if (!(object instanceof PdfDict) || object.getName('Type')?.value !== 'Sig') return register(object);
    registry.register = register;
    const transform = PdfDict.of({ Type: PdfName.of('TransformParams'), P: PdfNumber.of(permissions), V: PdfName.of('1.2') });
    object.set('Reference', new PdfArray([PdfDict.of({ Type: PdfName.of('SigRef'), TransformMethod: PdfName.of('DocMDP'), TransformParams: transform })]));
    const ref = register(object);
    document.getCatalog().set('Perms', PdfDict.of({ DocMDP: ref }));
    return ref;
  };
}
