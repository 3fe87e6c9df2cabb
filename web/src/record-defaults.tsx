import { Field } from './components';
import { SIGNING_ORDER_LABELS } from './lib/templates';
import { LIMITS, rangeOf } from './lib/text';
import { TEAM_ROLE_LABELS } from './teams';
import type { SigningOrder, TeamRowFragment } from './graphql/generated';

export type { SigningOrder };

/** Who will own what is made: the caller (empty value) or one of the teams where they may create. */
export function OwnerField({ owners, value, onChange, hint }: { owners: readonly TeamRowFragment[]; value: string; onChange: (teamId: string) => void; hint: string }) {
  if (owners.length === 0) return null;
  return (
    <Field label="Owner" hint={hint}>
      {(props) => (
        <select {...props} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">You (personal)</option>
          {owners.map((team) => <option key={team.id} value={team.id}>{team.name} ({TEAM_ROLE_LABELS[team.role].toLowerCase()})</option>)}
        </select>
      )}
    </Field>
  );
}

/** The signature methods each signer completes and the days a submitted record waits for signatures. */
export function MethodsAndLapse({ methods, onMethods, lapseDays, onLapseDays, errors = {} }: {
  methods: number;
  onMethods: (next: number) => void;
  lapseDays: string;
  onLapseDays: (next: string) => void;
  errors?: { methods?: string | null; lapseDays?: string | null };
}) {
  return (
    <div className="two-fields">
      <Field label="Methods each signer completes" hint="Distinct methods, e.g. email code and passkey." error={errors.methods}>
        {(props) => (
          <select {...props} value={methods} onChange={(e) => onMethods(Number(e.target.value))}>
            {rangeOf(LIMITS.signatureMethods).map((count) => <option key={count} value={count}>{count}</option>)}
          </select>
        )}
      </Field>
      <Field label="Days to collect signatures" hint={`${LIMITS.lapseDays.min}..${LIMITS.lapseDays.max}; empty for the default`} error={errors.lapseDays}>
        {(props) => <input {...props} type="number" min={LIMITS.lapseDays.min} max={LIMITS.lapseDays.max} value={lapseDays} onChange={(e) => onLapseDays(e.target.value)} />}
      </Field>
    </div>
  );
}

/** Parallel (everyone invited at submission) or sequential (one party at a time, then the witnesses). */
export function SigningOrderChoice({ value, onChange, error }: { value: SigningOrder; onChange: (next: SigningOrder) => void; error?: string | null }) {
  return (
    <fieldset>
      <legend>Signing order</legend>
      <div className="choice-row">
        {(Object.keys(SIGNING_ORDER_LABELS) as SigningOrder[]).map((order) => (
          <label className="choice" key={order}>
            <input type="radio" name="signingOrder" value={order} checked={value === order} onChange={() => onChange(order)} />
            <span>{SIGNING_ORDER_LABELS[order]}</span>
          </label>
        ))}
      </div>
      <p className="muted small">{value === 'sequential' ? 'Each party is invited when the one before has signed; witnesses sign after the parties.' : 'Every participant is invited when the draft is submitted.'}</p>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}
