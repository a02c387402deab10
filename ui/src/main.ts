import { mount } from 'svelte';
// First: it takes a one-time admin link out of the address before the router reads the address.
import './lib/admin-link';
import App from './App.svelte';
import './app.css';

const target = document.getElementById('app');
if (target) {
  mount(App, { target });
}
