import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, Count, Field, PageTitle } from '../components';
import { TemplateDocument, UseTemplateDocument, type TemplateRowFragment } from '../graphql/generated';
import { fieldIssues } from '../lib/errors';
import { fill, FIELD_VALUE_MAX, SIGNING_ORDER_LABELS, templateTypeLabel } from '../lib/templates';
import { LIMITS } from '../lib/text';
import { Link, navigate } from '../router';
import { TemplateUnavailable } from './templates';

type PartyValue = { displayName: string; email: string };

/** Issues this form shows beside a field: each value, and each role's name and email. */
const SHOWN = /^(values\.[a-z][a-z0-9_]*|parties(\.\d+\.(displayName|contactPointValue))?)$/;

/** A draft from a template: one input per field, a name and email per party role; then the record page. */
export function UseTemplatePage({ id }: { id: string }) {
  const [result] = useQuery({ query: TemplateDocument, variables: { id } });
  const template = result.data?.template;
  if (!template) {
    return <TemplateUnavailable title="Use a template" fetching={result.fetching} error={result.error} />;
  }
  return <UseTemplateForm template={template} key={`${template.id}:${template.version}`} />;
}

function UseTemplateForm({ template }: { template: TemplateRowFragment }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(template.fields.map((field) => [field.name, ''])));
  const [parties, setParties] = useState<PartyValue[]>(() => template.parties.map(() => ({ displayName: '', email: '' })));
  const [state, use] = useMutation(UseTemplateDocument);
  const issues = fieldIssues(state.error, (path) => SHOWN.test(path));
  const updateParty = (index: number, patch: Partial<PartyValue>) => setParties(parties.map((party, i) => (i === index ? { ...party, ...patch } : party)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Optional fields left empty are left out: the service fills their placeholders with nothing.
    const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ''));
    const result = await use({
      id: template.id,
      input: { values: given, parties: parties.map((party) => ({ displayName: party.displayName.trim(), contactPointValue: party.email.trim() })) },
    });
    if (result.data) navigate(`/records/${result.data.createRecordFromTemplate.agrReference}`);
  };

  const preview = fill(template.body, values);
  return (
    <section className="medium">
      <PageTitle title={`Use ${template.name}`}>Use {template.name}</PageTitle>
      <div className="record-meta use-meta">
        <span>{templateTypeLabel(template.recordType)}</span>
        <span>Version {template.version}</span>
        <span>Signing order: {SIGNING_ORDER_LABELS[template.defaults.signingOrder === 'sequential' ? 'sequential' : 'parallel'].toLowerCase()}</span>
      </div>
      <form onSubmit={(event) => void submit(event)} noValidate>
        {template.fields.length > 0 && (
          <fieldset>
            <legend>Values</legend>
            {template.fields.map((field) => {
              const value = values[field.name] ?? '';
              const max = field.maxLength ?? FIELD_VALUE_MAX;
              return (
                <Field key={field.name} label={`${field.label}${field.required ? '' : ' (optional)'}`} error={issues.at(`values.${field.name}`)}
                  counter={field.maxLength ? <Count value={[...value].length} max={max} unit="characters" /> : undefined}>
                  {(props) => <input {...props} type="text" name={field.name} required={field.required} value={value} onChange={(e) => setValues({ ...values, [field.name]: e.target.value })} />}
                </Field>
              );
            })}
          </fieldset>
        )}
        {template.parties.length > 0 && (
          <fieldset>
            <legend>People</legend>
            {issues.at('parties') && <p className="field-error" role="alert">{issues.at('parties')}</p>}
            {template.parties.map((role, index) => (
              <div className="two-fields" key={index}>
                <Field label={`${role.label} name`} error={issues.at(`parties.${index}.displayName`)}>
                  {(props) => <input {...props} type="text" autoComplete="off" maxLength={LIMITS.displayName} value={parties[index]?.displayName ?? ''} onChange={(e) => updateParty(index, { displayName: e.target.value })} />}
                </Field>
                <Field label={`${role.label} email`} hint={role.role === 'witness' ? 'Witness' : undefined} error={issues.at(`parties.${index}.contactPointValue`)}>
                  {(props) => <input {...props} type="email" autoComplete="off" value={parties[index]?.email ?? ''} onChange={(e) => updateParty(index, { email: e.target.value })} />}
                </Field>
              </div>
            ))}
          </fieldset>
        )}
        <section className="card" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          {template.title && <p><strong>{fill(template.title, values)}</strong></p>}
          <div className="terms">{preview}</div>
        </section>
        <Alert>{issues.rest}</Alert>
        <div className="actions">
          <button type="submit" className="button primary" disabled={state.fetching}>{state.fetching ? 'Creating…' : 'Create draft'}</button>
          <Link className="button secondary" href={`/templates/${template.id}`}>Edit the template</Link>
        </div>
        <p className="muted small after-actions">A draft is private. You sign it, then submit it: only then are the others invited.</p>
      </form>
    </section>
  );
}
