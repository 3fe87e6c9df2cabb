import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, Field, PageTitle } from '../components';
import { CreateTemplateDocument, TemplateDocument, UpdateTemplateDocument, type TemplateRowFragment } from '../graphql/generated';
import { fieldIssues } from '../lib/errors';
import { FIELD_LABEL_MAX, FIELD_VALUE_MAX, placeholdersOf, TEMPLATE_FIELDS_MAX, TEMPLATE_TYPE_LABELS, type TemplateRecordType } from '../lib/templates';
import { LIMITS } from '../lib/text';
import { Link, navigate } from '../router';
import { canCreateFor, useWorkspace } from '../teams';
import { MethodsAndLapse, OwnerField, SigningOrderChoice, type SigningOrder } from '../record-defaults';
import { TemplateUnavailable, TEMPLATES_CONTEXT } from './templates';

type FieldDraft = { name: string; label: string; required: boolean; maxLength: string };
type RoleDraft = { label: string; role: 'party' | 'witness' };

/** Paths of the 422 issues this form shows beside a field; the others go to the form's alert. */
const SHOWN = /^(name|recordType|title|body|fields(\.\d+\.(name|label|maxLength))?|parties(\.\d+\.(label|role))?|requiredSignatureMethodCount|lapseDays|signingOrder)$/;

/** A new template, or one to change: `id` null creates. */
export function TemplateEditPage({ id }: { id: string | null }) {
  const [result] = useQuery({ query: TemplateDocument, variables: { id: id ?? '' }, pause: !id });
  if (!id) return <TemplateForm template={null} />;
  const template = result.data?.template;
  if (!template) {
    return <TemplateUnavailable title="Template" fetching={result.fetching} error={result.error} />;
  }
  return <TemplateForm template={template} key={`${template.id}:${template.version}`} />;
}

function TemplateForm({ template }: { template: TemplateRowFragment | null }) {
  const workspace = useWorkspace();
  const owners = workspace.teams.filter((team) => canCreateFor(team.role));
  const [owner, setOwner] = useState<string | null>(null);
  const teamId = owner ?? (workspace.team && canCreateFor(workspace.team.role) ? workspace.team.id : '');
  const [name, setName] = useState(template?.name ?? '');
  const [recordType, setRecordType] = useState<TemplateRecordType>((template?.recordType as TemplateRecordType | undefined) ?? 'agreement');
  const [title, setTitle] = useState(template?.title ?? '');
  const [body, setBody] = useState(template?.body ?? '');
  const [fields, setFields] = useState<FieldDraft[]>(
    template?.fields.map((field) => ({ name: field.name, label: field.label, required: field.required, maxLength: field.maxLength === null ? '' : String(field.maxLength) })) ?? [],
  );
  const [roles, setRoles] = useState<RoleDraft[]>(template?.parties.map((party) => ({ label: party.label, role: party.role === 'witness' ? 'witness' : 'party' })) ?? [{ label: '', role: 'party' }]);
  const defaults = template?.defaults;
  const [methods, setMethods] = useState(defaults?.requiredSignatureMethodCount ?? 1);
  const [lapseDays, setLapseDays] = useState(defaults?.lapseDays ? String(defaults.lapseDays) : '');
  const [fullText, setFullText] = useState(defaults?.onChainFullText ?? false);
  const [verifiedParties, setVerifiedParties] = useState(defaults?.onChainIncludeVerifiedParties ?? false);
  const [signingOrder, setSigningOrder] = useState<SigningOrder>(defaults?.signingOrder === 'sequential' ? 'sequential' : 'parallel');
  const [created, create] = useMutation(CreateTemplateDocument);
  const [updated, update] = useMutation(UpdateTemplateDocument);
  const [saved, setSaved] = useState(false);
  const state = template ? updated : created;
  const issues = fieldIssues(state.error, (path) => SHOWN.test(path));

  const used = placeholdersOf(`${title}\n${body}`);
  const undeclared = used.filter((placeholder) => !fields.some((field) => field.name === placeholder));
  const addUndeclared = () => setFields([...fields, ...undeclared.map((placeholder) => ({ name: placeholder, label: labelOf(placeholder), required: true, maxLength: '' }))]);
  const updateField = (index: number, patch: Partial<FieldDraft>) => setFields(fields.map((field, i) => (i === index ? { ...field, ...patch } : field)));
  const updateRole = (index: number, patch: Partial<RoleDraft>) => setRoles(roles.map((role, i) => (i === index ? { ...role, ...patch } : role)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const content = {
      name: name.trim(),
      recordType,
      title: title.trim() || null,
      body,
      fields: fields.map((field) => ({ name: field.name.trim(), label: field.label.trim() || field.name.trim(), required: field.required, ...(field.maxLength ? { maxLength: Number(field.maxLength) } : {}) })),
      parties: roles.map((role) => ({ label: role.label.trim(), role: role.role })),
      defaults: { requiredSignatureMethodCount: methods, lapseDays: lapseDays ? Number(lapseDays) : null, onChainFullText: fullText, onChainIncludeVerifiedParties: verifiedParties, signingOrder },
    };
    if (template) {
      const result = await update({ id: template.id, input: content }, TEMPLATES_CONTEXT);
      if (result.data) setSaved(true);
    } else {
      const result = await create({ input: { ...content, title: content.title ?? undefined, ...(teamId ? { teamId } : {}) } }, TEMPLATES_CONTEXT);
      if (result.data) navigate(`/templates/${result.data.createTemplate.id}`);
    }
  };

  const heading = template ? template.name : 'New template';
  const witnessed = recordType === 'witnessed_agreement';
  return (
    <section className="medium">
      <PageTitle title={heading}>{heading}</PageTitle>
      {template && (
        <div className="actions">
          <Link className="button primary" href={`/templates/${template.id}/use`}>Use this template</Link>
          <Link className="button secondary" href={`/templates/${template.id}/bulk`}>Bulk send</Link>
          <span className="muted small">Version {template.version}: saving makes a new version; records made before keep theirs.</span>
        </div>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate>
        {!template && <OwnerField owners={owners} value={teamId} onChange={setOwner} hint="A team’s template is the team’s: its members use it, and it stays when you leave." />}
        <Field label="Template name" error={issues.at('name')}>
          {(props) => <input {...props} type="text" required value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <fieldset>
          <legend>Type of record</legend>
          <div className="choice-row">
            {(Object.keys(TEMPLATE_TYPE_LABELS) as TemplateRecordType[]).map((value) => (
              <label className="choice" key={value}>
                <input type="radio" name="recordType" value={value} checked={recordType === value} onChange={() => setRecordType(value)} />
                <span>{TEMPLATE_TYPE_LABELS[value]}</span>
              </label>
            ))}
          </div>
          {issues.at('recordType') && <p className="field-error">{issues.at('recordType')}</p>}
        </fieldset>

        <div className="card">
          <Field label="Title (optional)" hint="May hold placeholders too." error={issues.at('title')}>
            {(props) => <input {...props} type="text" value={title} onChange={(e) => setTitle(e.target.value)} />}
          </Field>
          <Field label="Text" error={issues.at('body')}
            hint={<>Write <code>{'{{name}}'}</code> where a value goes: lowercase letters, digits and _. The filled text must meet the record limits ({LIMITS.body.minWords}..{LIMITS.body.maxWords} words).</>}>
            {(props) => <textarea {...props} required value={body} onChange={(e) => setBody(e.target.value)} />}
          </Field>
          {undeclared.length > 0 && (
            <p className="small">
              Placeholders without a field: {undeclared.map((placeholder) => <code key={placeholder}>{`{{${placeholder}}}`} </code>)}
              <button type="button" className="button secondary small" onClick={addUndeclared}>Add their fields</button>
            </p>
          )}
        </div>

        <fieldset>
          <legend>Fields <span className="muted small">({fields.length} of at most {TEMPLATE_FIELDS_MAX})</span></legend>
          <p className="muted small">One per placeholder: the form that uses the template asks for each.</p>
          {issues.at('fields') && <p className="field-error" role="alert">{issues.at('fields')}</p>}
          {fields.map((field, index) => (
            <div className="template-field-row" key={index}>
              <Field label={`Field ${index + 1} name`} error={issues.at(`fields.${index}.name`)}>
                {(props) => <input {...props} type="text" className="mono" spellCheck={false} autoComplete="off" value={field.name} onChange={(e) => updateField(index, { name: e.target.value })} />}
              </Field>
              <Field label={`Field ${index + 1} label`} error={issues.at(`fields.${index}.label`)}>
                {(props) => <input {...props} type="text" maxLength={FIELD_LABEL_MAX} value={field.label} onChange={(e) => updateField(index, { label: e.target.value })} />}
              </Field>
              <Field label={`Field ${index + 1} max length`} error={issues.at(`fields.${index}.maxLength`)}>
                {(props) => <input {...props} type="number" min={1} max={FIELD_VALUE_MAX} value={field.maxLength} onChange={(e) => updateField(index, { maxLength: e.target.value })} />}
              </Field>
              <label className="check"><input type="checkbox" checked={field.required} onChange={(e) => updateField(index, { required: e.target.checked })} /> Required<span className="visually-hidden"> field {index + 1}</span></label>
              <button type="button" className="button secondary" onClick={() => setFields(fields.filter((_, i) => i !== index))}>
                Remove<span className="visually-hidden"> field {index + 1}</span>
              </button>
            </div>
          ))}
          <button type="button" className="button secondary small" disabled={fields.length >= TEMPLATE_FIELDS_MAX} onClick={() => setFields([...fields, { name: '', label: '', required: true, maxLength: '' }])}>
            Add field
          </button>
        </fieldset>

        <fieldset>
          <legend>Party roles <span className="muted small">({roles.length})</span></legend>
          <p className="muted small">{recordType === 'declaration' ? 'A declaration has no other party; it may have witnesses only as a witnessed agreement.' : 'The people to fill in when using the template, in signing order.'}</p>
          {issues.at('parties') && <p className="field-error" role="alert">{issues.at('parties')}</p>}
          {roles.map((role, index) => (
            <div className="row" key={index}>
              <Field label={`Role ${index + 1} label`} error={issues.at(`parties.${index}.label`)}>
                {(props) => <input {...props} type="text" maxLength={LIMITS.displayName} value={role.label} onChange={(e) => updateRole(index, { label: e.target.value })} />}
              </Field>
              <Field label={`Role ${index + 1} kind`} error={issues.at(`parties.${index}.role`)}>
                {(props) => (
                  <select {...props} value={role.role} onChange={(e) => updateRole(index, { role: e.target.value === 'witness' ? 'witness' : 'party' })}>
                    <option value="party">Party</option>
                    <option value="witness" disabled={!witnessed}>Witness</option>
                  </select>
                )}
              </Field>
              <button type="button" className="button secondary" onClick={() => setRoles(roles.filter((_, i) => i !== index))}>
                Remove<span className="visually-hidden"> role {index + 1}</span>
              </button>
            </div>
          ))}
          <button type="button" className="button secondary small" onClick={() => setRoles([...roles, { label: '', role: 'party' }])}>Add role</button>
        </fieldset>

        <fieldset>
          <legend>Defaults of the records made from it</legend>
          <MethodsAndLapse methods={methods} onMethods={setMethods} lapseDays={lapseDays} onLapseDays={setLapseDays} errors={{ methods: issues.at('requiredSignatureMethodCount'), lapseDays: issues.at('lapseDays') }} />
          <SigningOrderChoice value={signingOrder} onChange={setSigningOrder} error={issues.at('signingOrder')} />
          <label className="check"><input type="checkbox" checked={fullText} onChange={(e) => setFullText(e.target.checked)} /> Publish the full sealed text on chain (otherwise only a hash)</label>
          <label className="check"><input type="checkbox" checked={verifiedParties} onChange={(e) => setVerifiedParties(e.target.checked)} /> Publish verified signer details on chain (every signer must acknowledge this)</label>
        </fieldset>

        <Alert>{issues.rest}</Alert>
        {saved && <Alert kind="success">Saved as version {template?.version}.</Alert>}
        <div className="actions">
          <button type="submit" className="button primary" disabled={state.fetching}>{state.fetching ? 'Saving…' : template ? 'Save template' : 'Create template'}</button>
          <Link className="button secondary" href="/templates">Back to the templates</Link>
        </div>
      </form>
    </section>
  );
}

/** 'client_name' -> 'Client name': a first label the author can change. */
function labelOf(placeholder: string): string {
  const words = placeholder.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
