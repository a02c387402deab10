import { mount } from 'svelte';
// First: they take a one-time admin link, or the code an issuer sent back, out of the address
// before the router reads the address.
import './lib/admin-link';
import './lib/oauth-sign-in';
import App from './App.svelte';
import './app.css';

const target = document.getElementById('app');
if (target) {
  mount(App, { target });
}
