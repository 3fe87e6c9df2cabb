/** The contract's enumerations come from the domain's one vocabulary (no ORM involved). */
export * from '../../domain/vocabulary.js';
