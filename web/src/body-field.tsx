import { Count, Field } from './components';
import { countCharacters, countWords, LIMITS } from './lib/text';

/** The record body with both limits (characters and normalized words) counted as the person types. */
export function BodyField({ label = 'Terms', value, onChange, hint }: { label?: string; value: string; onChange: (next: string) => void; hint?: string }) {
  const { minCharacters, maxCharacters, minWords, maxWords } = LIMITS.body;
  return (
    <Field
      label={label}
      hint={hint ?? 'Counted after normalization: spaces and line breaks collapse to one space.'}
      counter={
        <>
          <Count value={countCharacters(value)} min={minCharacters} max={maxCharacters} unit="characters" />
          {' · '}
          <Count value={countWords(value)} min={minWords} max={maxWords} unit="words" />
        </>
      }
    >
      {(props) => <textarea {...props} value={value} onChange={(e) => onChange(e.target.value)} required />}
    </Field>
  );
}

export function bodyWithinLimits(value: string): boolean {
  const characters = countCharacters(value);
  const words = countWords(value);
  const { minCharacters, maxCharacters, minWords, maxWords } = LIMITS.body;
  return characters >= minCharacters && characters <= maxCharacters && words >= minWords && words <= maxWords;
}
