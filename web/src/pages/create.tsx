import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { BodyField, bodyWithinLimits } from '../body-field';
import { Alert, Count, Field, PageTitle } from '../components';
import { FileDrop, formatBytes } from '../file-drop';
import { CreateAgreementDocument, CreateDeclarationDocument, CreateNotarizationDocument, type RecordType, type SigningOrder } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { TYPE_LABELS } from '../lib/format';
import { sha256Hex, type HashedFile } from '../lib/hash';
import { LIMITS, normalizeText } from '../lib/text';
import { PartiesEditor, toNamedParties, type PartyDraft } from '../parties-editor';
import { navigate } from '../router';
import { canCreateFor, useWorkspace } from '../teams';
import { MethodsAndLapse, OwnerField, SigningOrderChoice } from '../record-defaults';

const TYPE_HINTS: Record<RecordType, string> = {
  agreement: 'You and up to 14 other parties agree to the same terms.',
  declaration: 'You alone declare something; witnesses may co-sign.',
  witnessed_agreement: 'Parties agree, and up to 5 witnesses attest.',
  notarization: 'Prove that a file or text existed: only its SHA-256 is recorded.',
};

type ContentKind = 'file' | 'text' | 'hash';

export function CreatePage() {
  const workspace = useWorkspace();
  // Teams where the caller may create records (viewers only read); the selected one is the default owner.
  const owners = workspace.teams.filter((team) => canCreateFor(team.role));
  const [owner, setOwner] = useState<string | null>(null);
  const teamId = owner ?? (workspace.team && canCreateFor(workspace.team.role) ? workspace.team.id : '');
  const [type, setType] = useState<RecordType>('agreement');
  const [title, setTitle] = useState('');
  const [summary, setSummary] = useState('');
  const [body, setBody] = useState('');
  const [parties, setParties] = useState<PartyDraft[]>([{ displayName: '', email: '' }]);
  const [witnesses, setWitnesses] = useState<PartyDraft[]>([]);
  const [methods, setMethods] = useState(1);
  const [lapseDays, setLapseDays] = useState('');
  const [fullText, setFullText] = useState(false);
  const [verifiedParties, setVerifiedParties] = useState(false);
  const [signingOrder, setSigningOrder] = useState<SigningOrder>('parallel');
  const [contentKind, setContentKind] = useState<ContentKind>('file');
  const [file, setFile] = useState<HashedFile | null>(null);
  const [text, setText] = useState('');
  const [textPublic, setTextPublic] = useState(false);
  const [hash, setHash] = useState('');
  const [label, setLabel] = useState('');
  const [agreement, createAgreement] = useMutation(CreateAgreementDocument);
  const [declaration, createDeclaration] = useMutation(CreateDeclarationDocument);
  const [notarization, createNotarization] = useMutation(CreateNotarizationDocument);
  const [localError, setLocalError] = useState<string | null>(null);
  const busy = agreement.fetching || declaration.fetching || notarization.fetching;
  const error = localError ?? describeError(agreement.error ?? declaration.error ?? notarization.error);

  const common = {
    ...(teamId ? { teamId } : {}),
    requiredSignatureMethodCount: methods,
    ...(lapseDays ? { lapseDays: Number(lapseDays) } : {}),
    onChainIncludeVerifiedParties: verifiedParties,
  };
  const written = {
    ...common,
    body,
    onChainFullText: fullText,
    ...(title.trim() ? { title: title.trim() } : {}),
    ...(summary.trim() ? { summary: summary.trim() } : {}),
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setLocalError(null);
    let reference: string | undefined;
    if (type === 'agreement' || type === 'witnessed_agreement') {
      const result = await createAgreement({
        input: { ...written, type, signingOrder, parties: toNamedParties(parties), ...(type === 'witnessed_agreement' ? { witnesses: toNamedParties(witnesses) } : {}) },
      });
      reference = result.data?.createAgreement.agrReference;
    } else if (type === 'declaration') {
      const result = await createDeclaration({ input: { ...written, ...(witnesses.length ? { witnesses: toNamedParties(witnesses) } : {}) } });
      reference = result.data?.createDeclaration.agrReference;
    } else {
      const content = await notarizationContent();
      if (!content) return;
      const result = await createNotarization({
        input: { ...common, ...content, ...(label.trim() ? { label: label.trim() } : {}), coNotarizers: toNamedParties(parties.filter((p) => p.email.trim())) },
      });
      reference = result.data?.createNotarization.record.agrReference;
    }
    if (reference) navigate(`/records/${reference}`);
  };

  /** Only the digest and file facts are sent: never the file's bytes. */
  const notarizationContent = async () => {
    if (contentKind === 'file') {
      if (!file) return setLocalError('Choose a file to notarize.'), null;
      return { contentType: 'file', contentHash: `sha256:${file.sha256}`, filename: file.name, ...(file.type ? { mimeType: file.type } : {}), sizeBytes: file.size };
    }
    if (contentKind === 'text') {
      const normalized = normalizeText(text);
      if (!normalized) return setLocalError('Enter the text to notarize.'), null;
      return { contentType: 'text', text, textPublic, contentHash: `sha256:${await sha256Hex(new TextEncoder().encode(normalized))}` };
    }
    const hex = hash.trim().replace(/^sha256:/i, '').toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex)) return setLocalError('A SHA-256 hash is 64 hexadecimal characters.'), null;
    return { contentType: 'hash', contentHash: `sha256:${hex}` };
  };

  /** Agreements start with one party row to fill in; co-notarizers are optional, so none by default. */
  const chooseType = (next: RecordType) => {
    const blank = parties.every((party) => !party.displayName.trim() && !party.email.trim());
    if (blank) setParties(next === 'agreement' || next === 'witnessed_agreement' ? [{ displayName: '', email: '' }] : []);
    setType(next);
  };

  const isNotarization = type === 'notarization';
  const canSubmit = !busy && (isNotarization || bodyWithinLimits(body));

  return (
    <section className="medium">
      <PageTitle title="New record">New record</PageTitle>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <OwnerField owners={owners} value={teamId} onChange={setOwner} hint="A team’s record belongs to the team: its members see it, and it stays when you leave. You still sign it yourself." />
        <fieldset>
          <legend>Type of record</legend>
          <div className="choice-row">
            {(Object.keys(TYPE_LABELS) as RecordType[]).map((value) => (
              <label className="choice" key={value}>
                <input type="radio" name="type" value={value} checked={type === value} onChange={() => chooseType(value)} />
                <span>{TYPE_LABELS[value]}</span>
              </label>
            ))}
          </div>
          <p className="muted small">{TYPE_HINTS[type]}</p>
        </fieldset>

        {!isNotarization && (
          <div className="card">
            <Field label="Title (optional)" counter={<Count value={[...title].length} max={LIMITS.title} unit="characters" />}>
              {(props) => <input {...props} type="text" value={title} onChange={(e) => setTitle(e.target.value)} />}
            </Field>
            <BodyField value={body} onChange={setBody} />
            <Field label="Summary (optional)" counter={<Count value={[...summary].length} max={LIMITS.summary} unit="characters" />}>
              {(props) => <input {...props} type="text" value={summary} onChange={(e) => setSummary(e.target.value)} />}
            </Field>
          </div>
        )}

        {isNotarization && (
          <div className="card">
            <fieldset>
              <legend>What to notarize</legend>
              <div className="choice-row">
                {(['file', 'text', 'hash'] as const).map((kind) => (
                  <label className="choice" key={kind}>
                    <input type="radio" name="content" value={kind} checked={contentKind === kind} onChange={() => setContentKind(kind)} />
                    <span>{{ file: 'A file', text: 'A text', hash: 'A hash I have' }[kind]}</span>
                  </label>
                ))}
              </div>
            </fieldset>
            {contentKind === 'file' && (
              <>
                <FileDrop label="Choose a file, or drop it here" hint="It is hashed on this device; the file itself is never uploaded." onHashed={setFile} />
                {file && (
                  <dl className="facts card" aria-label="Hashed file">
                    <dt>File</dt><dd>{file.name}</dd>
                    <dt>Size</dt><dd>{formatBytes(file.size)}</dd>
                    <dt>SHA-256</dt><dd className="mono">{file.sha256}</dd>
                  </dl>
                )}
              </>
            )}
            {contentKind === 'text' && (
              <>
                <Field label="Text" hint="Hashed after normalization (spaces collapsed), like record bodies.">
                  {(props) => <textarea {...props} value={text} onChange={(e) => setText(e.target.value)} />}
                </Field>
                <label className="check"><input type="checkbox" checked={textPublic} onChange={(e) => setTextPublic(e.target.checked)} /> Show the text on the public verification page</label>
              </>
            )}
            {contentKind === 'hash' && (
              <Field label="SHA-256 hash" hint="64 hexadecimal characters, with or without the sha256: prefix.">
                {(props) => <input {...props} type="text" className="mono" spellCheck={false} value={hash} onChange={(e) => setHash(e.target.value)} />}
              </Field>
            )}
            <Field label="Label (optional)" counter={<Count value={[...label].length} max={LIMITS.label} unit="characters" />}>
              {(props) => <input {...props} type="text" value={label} onChange={(e) => setLabel(e.target.value)} />}
            </Field>
          </div>
        )}

        {(type === 'agreement' || type === 'witnessed_agreement') && (
          <PartiesEditor legend="Other parties" noun="Party" max={LIMITS.parties} value={parties} onChange={setParties} />
        )}
        {isNotarization && (
          <PartiesEditor legend="Co-notarizers (optional)" noun="Co-notarizer" max={LIMITS.coNotarizers} value={parties} onChange={setParties} />
        )}
        {(type === 'witnessed_agreement' || type === 'declaration') && (
          <PartiesEditor legend={type === 'declaration' ? 'Witnesses (optional)' : 'Witnesses'} noun="Witness" max={LIMITS.witnesses} value={witnesses} onChange={setWitnesses} />
        )}

        <fieldset>
          <legend>Signing</legend>
          <MethodsAndLapse methods={methods} onMethods={setMethods} lapseDays={lapseDays} onLapseDays={setLapseDays} />
          {(type === 'agreement' || type === 'witnessed_agreement') && <SigningOrderChoice value={signingOrder} onChange={setSigningOrder} />}
          {!isNotarization && (
            <label className="check"><input type="checkbox" checked={fullText} onChange={(e) => setFullText(e.target.checked)} /> Publish the full sealed text on chain (otherwise only a hash)</label>
          )}
          <label className="check"><input type="checkbox" checked={verifiedParties} onChange={(e) => setVerifiedParties(e.target.checked)} /> Publish verified signer details on chain (every signer must acknowledge this)</label>
        </fieldset>

        <Alert>{error}</Alert>
        <div className="actions">
          <button type="submit" className="button primary" disabled={!canSubmit}>{busy ? 'Creating…' : `Create ${TYPE_LABELS[type].toLowerCase()} draft`}</button>
        </div>
        <p className="muted small after-actions">A draft is private. You sign it, then submit it: only then are the others invited.</p>
      </form>
    </section>
  );
}
