import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { SessionProvider } from './auth';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(
  <StrictMode>
    <SessionProvider>
      <App />
    </SessionProvider>
  </StrictMode>,
);
