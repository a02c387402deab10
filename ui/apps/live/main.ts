import { mount } from 'svelte';
import LiveApp from './LiveApp.svelte';
import '../../src/app.css';

const target = document.getElementById('app');
if (target) {
  mount(LiveApp, { target });
}
