import { Field } from './components';
import { LIMITS } from './lib/text';

export type PartyDraft = { displayName: string; email: string };

/** Named participants (name + email), with the limit shown and add/remove by keyboard or pointer. */
export function PartiesEditor({ legend, noun, max, value, onChange, hint }: {
  legend: string;
  noun: string;
  max: number;
  value: PartyDraft[];
  onChange: (next: PartyDraft[]) => void;
  hint?: string;
}) {
  const update = (index: number, patch: Partial<PartyDraft>) => onChange(value.map((party, i) => (i === index ? { ...party, ...patch } : party)));
  return (
    <fieldset>
      <legend>{legend} <span className="muted small">({value.length} of at most {max})</span></legend>
      {hint && <p className="muted small">{hint}</p>}
      {value.map((party, index) => (
        <div className="row" key={index}>
          <Field label={`${noun} ${index + 1} name`} counter={party.displayName.length > 40 ? `${party.displayName.length} / ${LIMITS.displayName}` : undefined}>
            {(props) => <input {...props} type="text" autoComplete="off" maxLength={LIMITS.displayName} value={party.displayName} onChange={(e) => update(index, { displayName: e.target.value })} />}
          </Field>
          <Field label={`${noun} ${index + 1} email`}>
            {(props) => <input {...props} type="email" autoComplete="off" value={party.email} onChange={(e) => update(index, { email: e.target.value })} />}
          </Field>
          <button type="button" className="button secondary" onClick={() => onChange(value.filter((_, i) => i !== index))}>
            Remove<span className="visually-hidden"> {noun.toLowerCase()} {index + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" className="button secondary small" disabled={value.length >= max} onClick={() => onChange([...value, { displayName: '', email: '' }])}>
        Add {noun.toLowerCase()}
      </button>
    </fieldset>
  );
}

export function toNamedParties(list: PartyDraft[]): { displayName: string; contactPointValue: string }[] {
  return list.map((party) => ({ displayName: party.displayName.trim(), contactPointValue: party.email.trim() }));
}
