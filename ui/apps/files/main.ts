import { mount } from 'svelte';
import FilesApp from './FilesApp.svelte';
import '../../src/app.css';

const target = document.getElementById('app');
if (target) {
  mount(FilesApp, { target });
}
